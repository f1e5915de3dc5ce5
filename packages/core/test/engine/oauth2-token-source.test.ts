// The token source over the real sender and a real token endpoint on loopback: bounded answers and
// time, the egress proxy, which token a 401 drops, a change of credentials, failures not kept.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createEgressProxies } from '../../src/engine/egress/proxy-config.js';
import { createHttpSender, type HttpSender } from '../../src/engine/http/sender.js';
import { createTokenSource, type TokenSource } from '../../src/engine/oauth2/token-cache.js';
import type { SealedSecret, SubscriberOAuth2Document } from '../../src/storage/documents.js';
import { startConnectProxy, type ConnectProxy } from '../../../../test/support/connect-proxy.js';
import { startTokenServer, type TokenServer } from '../../../../test/support/token-server.js';

let tokens: TokenServer;
let proxy: ConnectProxy;
const senders: HttpSender[] = [];

beforeAll(async () => {
  tokens = await startTokenServer();
  proxy = await startConnectProxy();
});
afterAll(async () => {
  await Promise.all(senders.map((sender) => sender.close(true)));
  await Promise.all([tokens.close(), proxy.stop()]);
});

/** Sealed values stand for themselves here: `open` reads the ciphertext as the secret. */
const sealed = (secret: string, iv = 'iv-1'): SealedSecret => ({ keyId: 'k1', iv, tag: 't', ciphertext: secret });
const credentials = (extra: Partial<SubscriberOAuth2Document> = {}): SubscriberOAuth2Document => ({
  tokenUrl: tokens.url,
  clientId: 'herald',
  clientSecret: sealed('client-secret'),
  clientAuthentication: 'basic',
  ...extra,
});

function source(egressProxy?: string): TokenSource {
  const sender = createHttpSender({ ssrfAllowList: ['127.0.0.0/8'], egressProxies: createEgressProxies({ egressProxy }) });
  senders.push(sender);
  return createTokenSource({ request: { sender, userAgent: 'Herald/test', now: () => Date.now() }, open: (secret) => secret.ciphertext });
}
const call = { timeoutMs: 2_000 };

describe('token source', () => {
  test('an answer larger than 32 KiB is refused, not half-read', async () => {
    tokens.setHandler((_grant, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: 'x'.repeat(40_000) }));
    });
    expect(await source().tokenFor('big', credentials(), call)).toEqual({ ok: false, message: "the token endpoint's answer is larger than 32768 bytes" });
  });

  test('a token endpoint that does not answer is bounded by the attempt time: could not be reached, TIMEOUT', async () => {
    tokens.setHandler(() => undefined);
    const started = Date.now();
    const answer = await source().tokenFor('silent', credentials(), { timeoutMs: 300 });
    expect(answer).toMatchObject({ ok: false, message: expect.stringMatching(/^the token endpoint could not be reached: TIMEOUT/) });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  test("the token request goes through the subscriber's egress proxy", async () => {
    tokens.setHandler(tokens.issue());
    const before = proxy.connects.length;
    const answer = await source(proxy.url).tokenFor('proxied', credentials(), call);
    expect(answer.ok).toBe(true);
    expect(proxy.connects.slice(before).map((c) => c.authority)).toEqual([new URL(tokens.url).host]);
  });

  test('a failure is not kept: the next call asks again', async () => {
    const tokenSource = source();
    tokens.setHandler((_grant, response) => {
      response.writeHead(503).end();
    });
    expect(await tokenSource.tokenFor('flaky', credentials(), call)).toEqual({ ok: false, message: 'the token endpoint answered HTTP 503' });
    tokens.setHandler(tokens.issue());
    expect(await tokenSource.tokenFor('flaky', credentials(), call)).toMatchObject({ ok: true, token: { value: tokens.issued.at(-1) } });
  });

  test('drop forgets only the token it names; new credentials (a new seal) start afresh', async () => {
    tokens.setHandler(tokens.issue());
    const tokenSource = source();
    const first = await tokenSource.tokenFor('sub', credentials(), call);
    if (!first.ok) throw new Error(first.message);
    tokenSource.drop('sub', credentials(), 'some-older-token');
    expect(await tokenSource.tokenFor('sub', credentials(), call)).toEqual(first);
    tokenSource.drop('sub', credentials(), first.token.value);
    const second = await tokenSource.tokenFor('sub', credentials(), call);
    expect(second.ok && second.token.value).not.toBe(first.token.value);

    const grantsBefore = tokens.grants.length;
    const rotated = await tokenSource.tokenFor('sub', credentials({ clientSecret: sealed('rotated-secret', 'iv-2') }), call);
    expect(rotated.ok && rotated.token.value).not.toBe(second.ok && second.token.value);
    expect(tokens.grants.slice(grantsBefore).map((g) => g.basic?.clientSecret)).toEqual(['rotated-secret']);
  });
});
