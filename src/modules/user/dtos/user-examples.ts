/** The user of the OpenAPI examples (PUT user, POST identity, GET users, and every account answer). */
export const USER_EXAMPLE = { userIdentifier: '16fd2706-8baf-433b-82eb-8c7fada847da', isPrimaryAccountHolder: true, status: 'active' };

/** The OpenAPI description of the 404 of the routes under an account's users (PUT user, GET users). */
export const ACCOUNT_USER_NOT_FOUND = '404/10/0 "Account Not Found": unknown account or user, or one of another partner or program';
