import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The claims a test account's ID token carries, the way Microsoft Entra issues them. */
export interface TestAccountClaims {
  oid: string;
  tid: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  preferred_username?: string;
}

export interface TestIdentityProvider {
  issuer: string;
  port: number;
  clientId: string;
  clientSecret: string;
  /** Adds (or replaces) an account that can sign in at the provider's login form. */
  addAccount(login: string, password: string, claims: TestAccountClaims): void;
  close(): Promise<void>;
}

export interface TestProviderOptions {
  /** 0 picks a free port. */
  port?: number;
  redirectUris: string[];
  clientId?: string;
  clientSecret?: string;
}

interface ProviderInstance {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<{ uid: string; prompt: { name: string }; params: Record<string, unknown> }>;
  interactionFinished(req: IncomingMessage, res: ServerResponse, result: unknown, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
  Grant: new (input: { accountId: string; clientId: string }) => { addOIDCScope(scope: string): void; save(): Promise<string> };
  on(event: string, listener: (...args: unknown[]) => void): void;
}
type ProviderConstructor = new (issuer: string, configuration: Record<string, unknown>) => ProviderInstance;

// oidc-provider ships no type declarations; the few members used are typed above.
const PROVIDER_MODULE = 'oidc-provider';

/**
 * A real OpenID Connect provider (oidc-provider) on 127.0.0.1 standing in for Microsoft Entra: one
 * confidential client, PKCE required, ID tokens carrying tid, oid, email, email_verified and name,
 * and a minimal login form (username and password) that also grants consent.
 */
export async function startTestProvider(options: TestProviderOptions): Promise<TestIdentityProvider> {
  const { default: Provider } = (await import(PROVIDER_MODULE)) as { default: ProviderConstructor };
  const clientId = options.clientId ?? 'service-catalog-test';
  const clientSecret = options.clientSecret ?? 'test-client-secret-0123456789abcdef';
  const accounts = new Map<string, { password: string; claims: TestAccountClaims }>();

  const server = createServer();
  // Idle connections outlive the client's, so a reused keep-alive socket is never closed under it.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    async findAccount(_ctx: unknown, id: string) {
      const account = accounts.get(id);
      if (!account) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, ...account.claims }) };
    },
    claims: {
      openid: ['sub', 'tid', 'oid'],
      email: ['email', 'email_verified'],
      profile: ['name', 'preferred_username'],
    },
    // Like Entra, put the scope's claims in the ID token itself.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['test-provider-cookie-key-0123456789'] },
    jwks: { keys: [{ ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }), alg: 'RS256', use: 'sig' }] },
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
    renderError: async (ctx: { type: string; body: string }, out: Record<string, string>) => {
      ctx.type = 'html';
      ctx.body = page('Sign-in error', `<p role="alert">${escapeHtml(out.error_description ?? out.error ?? 'error')}</p>`);
    },
  });
  const handler = provider.callback();

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const m = /^\/interaction\/([\w-]+)(\/login)?$/.exec((req.url ?? '').split('?')[0]);
    if (!m) return handler(req, res);
    interaction(req, res, m[1], Boolean(m[2])).catch((err: unknown) => {
      res.statusCode = 500;
      res.end(err instanceof Error ? err.message : 'interaction failed');
    });
  });

  async function interaction(req: IncomingMessage, res: ServerResponse, uid: string, submitted: boolean) {
    const details = await provider.interactionDetails(req, res);
    if (!submitted) return sendForm(res, uid, null);
    const form = new URLSearchParams(await readBody(req));
    const login = form.get('login') ?? '';
    const account = accounts.get(login);
    if (!account || account.password !== form.get('password')) return sendForm(res, uid, 'Wrong username or password.');
    const grant = new provider.Grant({ accountId: login, clientId: String(details.params.client_id) });
    grant.addOIDCScope(String(details.params.scope ?? 'openid'));
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { login: { accountId: login }, consent: { grantId } }, { mergeWithLastSubmission: false });
  }

  return {
    issuer,
    port,
    clientId,
    clientSecret,
    addAccount: (login, password, claims) => accounts.set(login, { password, claims }),
    close: () => closeServer(server),
  };
}

function sendForm(res: ServerResponse, uid: string, error: string | null) {
  res.statusCode = 200;
  res.setHeader('content-type', 'text/html; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.end(
    page(
      'Sign in to the test identity provider',
      `${error ? `<p role="alert">${escapeHtml(error)}</p>` : ''}
      <form method="post" action="/interaction/${encodeURIComponent(uid)}/login">
        <p><label for="login">Username</label> <input id="login" name="login" autocomplete="username" required></p>
        <p><label for="password">Password</label> <input id="password" name="password" type="password" autocomplete="current-password" required></p>
        <button type="submit">Sign in</button>
      </form>`,
    ),
  );
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      data += chunk;
      if (data.length > 64 * 1024) req.destroy(new Error('body too large'));
    });
    req.on('end', () => resolve(data));
    req.on('error', reject);
  });
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * Plays the browser at the provider: follows its redirects with a cookie jar, posts the login form
 * and answers the URL the provider sends back to the app (the redirect URI with code and state).
 */
export async function authorizeAtProvider(authorizationUrl: string, login: string, password: string, redirectUri: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = authorizationUrl;
  let method: 'GET' | 'POST' = 'GET';
  let body: string | undefined;
  for (let hop = 0; hop < 20; hop++) {
    if (url.startsWith(redirectUri)) return new URL(url);
    const res = await fetch(url, {
      method,
      body,
      redirect: 'manual',
      headers: {
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    const location = res.headers.get('location');
    if (location && res.status >= 300 && res.status < 400) {
      url = new URL(location, url).href;
      method = 'GET';
      body = undefined;
      continue;
    }
    const html = await res.text();
    const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
    if (res.status !== 200 || !action || method === 'POST') throw new Error(`the provider answered ${res.status}: ${html.slice(0, 300)}`);
    url = new URL(action, url).href;
    method = 'POST';
    body = new URLSearchParams({ login, password }).toString();
  }
  throw new Error('too many redirects at the provider');
}
