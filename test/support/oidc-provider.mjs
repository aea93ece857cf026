// A real OpenID Connect provider (oidc-provider, ESM) for the care console's sign-in spec, run as a
// child process so Jest's CommonJS never loads it. Prints {"issuer": "..."} once it listens.
// Accounts: alice (group care-agents), bob (group tellers). The interaction is a one-field login
// form; consent is implied for the one first-party client.
import * as http from 'node:http';
import Provider from 'oidc-provider';

const ACCOUNTS = {
  alice: { sub: 'alice', email: 'alice@bank.test', email_verified: true, name: 'Alice Agent', groups: ['care-agents'] },
  bob: { sub: 'bob', email: 'bob@bank.test', email_verified: true, name: 'Bob Teller', groups: ['tellers'] },
};

const server = http.createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: process.env.OIDC_CLIENT_ID,
      client_secret: process.env.OIDC_CLIENT_SECRET,
      redirect_uris: [process.env.OIDC_REDIRECT_URI],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
    },
  ],
  cookies: { keys: ['care-console-spec-cookie-key'] },
  scopes: ['openid', 'email', 'profile', 'groups'],
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
  features: { devInteractions: { enabled: false } },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  pkce: { required: () => true },
  // The scope's claims in the ID token too, for the console's ID-token path (no userinfo URL).
  conformIdTokenClaims: false,
  async findAccount(_ctx, sub) {
    const account = ACCOUNTS[sub];
    return account && { accountId: sub, claims: async () => account };
  },
  async loadExistingGrant(ctx) {
    const grantId = ctx.oidc.result?.consent?.grantId || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
    if (grantId) return ctx.oidc.provider.Grant.find(grantId);
    const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
    grant.addOIDCScope('openid email profile groups');
    await grant.save();
    return grant;
  },
});

const callback = provider.callback();
server.on('request', async (req, res) => {
  try {
    const match = /^\/interaction\/([^/?]+)(\/login)?/.exec(req.url);
    if (!match) return callback(req, res);
    const details = await provider.interactionDetails(req, res);
    if (req.method === 'GET') {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      return res.end(`<form method="post" action="/interaction/${details.uid}/login"><label>Login <input name="login"></label><button>Sign in</button></form>`);
    }
    let body = '';
    for await (const chunk of req) body += chunk;
    const login = new URLSearchParams(body).get('login');
    if (!ACCOUNTS[login]) {
      res.statusCode = 401;
      return res.end('unknown login');
    }
    await provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
  } catch (error) {
    res.statusCode = 500;
    res.end(String(error));
  }
});

process.stdout.write(`${JSON.stringify({ issuer })}\n`);
