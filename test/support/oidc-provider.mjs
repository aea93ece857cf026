// A real OpenID Connect provider (oidc-provider, ESM) for the care console's sign-in spec, run as a
// child process so Jest's CommonJS never loads it. Prints {"issuer": "..."} once it listens.
// Accounts: alice (group care-agents), bob (group tellers). The interaction is a one-field login
// form; consent is implied for the one first-party client. ID tokens are signed with an RS256 key
// made at start and published at /jwks. `POST /test/next-id-token` with a body of `forged`,
// `unsigned`, `nonce` or `issuer` makes the next token response carry a bad ID token of that kind;
// with `userinfo-sub`, the next userinfo answer names another subject.
import * as http from 'node:http';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import Provider from 'oidc-provider';

const signing = await generateKeyPair('RS256', { extractable: true });
const signingJwk = { ...(await exportJWK(signing.privateKey)), kid: 'spec-signing-key', alg: 'RS256', use: 'sig' };
const otherKey = await generateKeyPair('RS256');

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
  jwks: { keys: [signingJwk] },
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

/** The bad ID tokens the spec asks for: the provider's own claims, made untrustworthy in one way each. */
const TAMPER = {
  // Same kid, another key: the signature does not verify.
  forged: (claims, header) => new SignJWT(claims).setProtectedHeader(header).sign(otherKey.privateKey),
  unsigned: async (claims) => new UnsecuredJWT(claims).encode(),
  // Properly signed, but not for this sign-in (a replayed or injected token) or not by this issuer.
  nonce: (claims, header) => new SignJWT({ ...claims, nonce: 'not-the-nonce-of-this-sign-in' }).setProtectedHeader(header).sign(signing.privateKey),
  issuer: (claims, header) => new SignJWT({ ...claims, iss: 'https://impostor.test' }).setProtectedHeader(header).sign(signing.privateKey),
};
let nextIdToken = null;
let nextUserinfoSub = false;

provider.use(async (ctx, next) => {
  await next();
  if (ctx.oidc?.route === 'userinfo' && nextUserinfoSub && typeof ctx.body?.sub === 'string') {
    nextUserinfoSub = false;
    ctx.body = { ...ctx.body, sub: 'mallory' };
    return;
  }
  if (ctx.oidc?.route !== 'token' || !nextIdToken || typeof ctx.body?.id_token !== 'string') return;
  const tamper = TAMPER[nextIdToken];
  nextIdToken = null;
  ctx.body = { ...ctx.body, id_token: await tamper(decodeJwt(ctx.body.id_token), decodeProtectedHeader(ctx.body.id_token)) };
});

const callback = provider.callback();
server.on('request', async (req, res) => {
  try {
    if (req.method === 'POST' && req.url === '/test/next-id-token') {
      let mode = '';
      for await (const chunk of req) mode += chunk;
      if (!Object.hasOwn(TAMPER, mode) && mode !== 'userinfo-sub') {
        res.statusCode = 400;
        return res.end('unknown mode');
      }
      if (mode === 'userinfo-sub') nextUserinfoSub = true;
      else nextIdToken = mode;
      res.statusCode = 204;
      return res.end();
    }
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
