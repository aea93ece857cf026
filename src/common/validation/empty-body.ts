import { ApiBody } from '@nestjs/swagger';

/**
 * The body of a call that takes none: nothing, or `{}`. Any property is unknown (400/100/2, CONTRACT
 * section 1) and any other JSON value is not an object (400/100/5), through the body pipe like every
 * other DTO; a call that declared no body at all would accept and ignore whatever was sent.
 */
export class EmptyBody {}

/** OpenAPI for such a body: optional, an empty object. */
export const ApiEmptyBody = () =>
  ApiBody({
    type: EmptyBody,
    required: false,
    description: 'None, or `{}`: the call takes no parameters in its body',
    examples: { empty: { summary: 'No body (or {})', value: {} } },
  });
