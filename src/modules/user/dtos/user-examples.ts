/** The user of the OpenAPI examples (PUT user, POST identity, GET users, and every account answer). */
export const USER_EXAMPLE = { userIdentifier: '16fd2706-8baf-433b-82eb-8c7fada847da', isPrimaryAccountHolder: true, status: 'active' };
