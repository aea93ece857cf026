/** A Content-Type read: its media type, lower case and without parameters, and whether its charset is UTF-8. */
export interface MediaType {
  readonly type: string;
  /** No charset declared, or UTF-8 (or US-ASCII, its subset): CONTRACT sections 1 and 3 take bodies in UTF-8 only. */
  readonly utf8: boolean;
}

/** The media type of a Content-Type header (`application/json; charset=UTF-8`), undefined when there is none. */
export function mediaType(contentType: string | undefined): MediaType | undefined {
  if (!contentType) return undefined;
  // Most requests send the bare media type: no parameter, no charset to judge.
  if (!contentType.includes(';')) return { type: contentType.trim().toLowerCase(), utf8: true };
  const [type = '', ...parameters] = contentType.split(';').map((part) => part.trim().toLowerCase());
  const charset = parameters.find((parameter) => parameter.startsWith('charset='));
  return { type, utf8: charset === undefined || /^charset="?(utf-8|us-ascii)"?$/.test(charset) };
}
