// Unit tests of the pure pieces: error → reply mapping, TypeBox errors → field details, wire-string
// coercion, scope rules, the metrics read whole at scrape time.
import { ConflictError, NotFoundError, ValidationError } from '@herald/core';
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { hasScope, SCOPES } from '../src/auth/scopes.js';
import { UnauthorizedError } from '../src/errors/api-errors.js';
import { toErrorReply } from '../src/errors/error-reply.js';
import { HistogramSnapshot } from '../src/metrics/histogram-snapshot.js';
import { SampledSeries } from '../src/metrics/sampled.js';
import { Registry } from 'prom-client';
import { toFieldIssues } from '../src/validation/field-issues.js';
import { coerceWireStrings } from '../src/validation/validator-compiler.js';

describe('toErrorReply', () => {
  it('maps typed errors by code, keeping field details', () => {
    expect(toErrorReply(new ValidationError([{ field: 'x', message: 'bad' }]), 'r1')).toEqual({
      statusCode: 400,
      headers: {},
      body: { status: 'error', code: 'MISSING_REQUIRED_PARAMETER', message: 'Some fields in the payload are missing or invalid', errors: [{ field: 'x', message: 'bad' }] },
    });
    expect(toErrorReply(new NotFoundError(), 'r1').statusCode).toBe(404);
    expect(toErrorReply(new ConflictError(), 'r1').statusCode).toBe(409);
    const unauthorized = toErrorReply(new UnauthorizedError(), 'r1');
    expect(unauthorized.statusCode).toBe(401);
    expect(unauthorized.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it('hides everything about unexpected errors except the request id', () => {
    const error = new Error('connection to mongodb://user:pw@db failed');
    const reply = toErrorReply(error, 'req-123');
    expect(reply).toEqual({ statusCode: 500, headers: {}, body: { status: 'error', code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error (request id req-123)' } });
  });

  it('renames Fastify request errors', () => {
    expect(toErrorReply({ code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 }, 'r').body.code).toBe('PAYLOAD_TOO_LARGE');
    expect(toErrorReply({ code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 }, 'r').statusCode).toBe(415);
    expect(toErrorReply({ code: 'FST_ERR_SOMETHING_NEW', statusCode: 400 }, 'r').body.code).toBe('MISSING_REQUIRED_PARAMETER');
  });
});

describe('toFieldIssues', () => {
  const schema = Type.Object(
    { name: Type.String({ minLength: 1 }), kind: Type.Optional(Type.Union([Type.Literal('a'), Type.Literal('b')])), tags: Type.Optional(Type.Array(Type.String({ maxLength: 3 }))) },
    { additionalProperties: false },
  );
  const issuesOf = (value: unknown) => toFieldIssues(Compile(schema).Errors(value));

  it('one entry per missing, unknown or invalid field', () => {
    expect(issuesOf({ extra: 1, kind: 'c', tags: ['long!'] })).toEqual(
      expect.arrayContaining([
        { field: 'name', message: 'is required' },
        { field: 'extra', message: 'is not allowed' },
        { field: 'kind', message: expect.stringMatching(/one of a, b/) },
        { field: 'tags.0', message: expect.any(String) },
      ]),
    );
  });

  it('names the root when the value is not an object', () => {
    expect(issuesOf('text')).toEqual([{ field: 'body', message: expect.any(String) }]);
  });
});

describe('coerceWireStrings', () => {
  const schema = { properties: { limit: { type: 'integer' }, ratio: { type: 'number' }, on: { type: 'boolean' }, name: { type: 'string' } } };
  it('converts only canonical numbers and booleans', () => {
    expect(coerceWireStrings(schema, { limit: '10', ratio: '0.5', on: 'true', name: '10' })).toEqual({ limit: 10, ratio: 0.5, on: true, name: '10' });
    expect(coerceWireStrings(schema, { limit: '10.5', ratio: '1e3', on: 'yes' })).toEqual({ limit: '10.5', ratio: '1e3', on: 'yes' });
    expect(coerceWireStrings(schema, { limit: '007' })).toEqual({ limit: '007' });
  });
});

describe('hasScope', () => {
  it('manage satisfies subscriber CRUD but nothing else', () => {
    const granted = new Set([SCOPES.subscriberManage]);
    expect(hasScope(granted, SCOPES.subscriberDelete)).toBe(true);
    expect(hasScope(granted, SCOPES.eventRead)).toBe(false);
    expect(hasScope(new Set([SCOPES.projectManage]), SCOPES.projectRead)).toBe(true);
    expect(hasScope(new Set([SCOPES.projectRead]), SCOPES.projectManage)).toBe(false);
  });
});

describe('metrics read at scrape time', () => {
  it('a histogram counted elsewhere is shown as it stands: cumulative buckets, +Inf, sum and count', async () => {
    const registry = new Registry();
    const snapshot = new HistogramSnapshot(registry, 'h_seconds', 'help');
    expect(await registry.metrics()).toBe('# HELP h_seconds help\n# TYPE h_seconds histogram\n');
    snapshot.set({ bounds: [0.1, 1], cumulative: [1, 2], sum: 3.55, count: 3 });
    expect(await registry.metrics()).toBe(
      [
        '# HELP h_seconds help',
        '# TYPE h_seconds histogram',
        'h_seconds_bucket{le="0.1"} 1',
        'h_seconds_bucket{le="1"} 2',
        'h_seconds_bucket{le="+Inf"} 3',
        'h_seconds_sum 3.55',
        'h_seconds_count 3',
        '',
      ].join('\n'),
    );
    registry.resetMetrics();
    expect(await registry.metrics()).toContain('h_seconds_count 3');
  });

  it('each reading replaces every sample; a reading of none leaves no sample, with or without labels', async () => {
    const registry = new Registry();
    const plain = new SampledSeries<number | undefined>(registry, 'gauge', { name: 'g', help: 'help' }, (value) => (value === undefined ? [] : [{ value }]));
    const byOutcome = new SampledSeries<Record<string, number>, 'outcome'>(
      registry,
      'counter',
      { name: 'c_total', help: 'help', labelNames: ['outcome'] },
      (counts) => Object.entries(counts).map(([outcome, value]) => ({ labels: { outcome }, value })),
    );
    plain.update(4);
    byOutcome.update({ delivered: 2, failed: 1 });
    plain.update(0);
    byOutcome.update({ delivered: 5 });
    expect(await registry.metrics()).toBe(
      ['# HELP g help', '# TYPE g gauge', 'g 0', '', '# HELP c_total help', '# TYPE c_total counter', 'c_total{outcome="delivered"} 5', ''].join('\n'),
    );
    plain.update(undefined);
    byOutcome.update({});
    expect(await registry.metrics()).toBe(['# HELP g help', '# TYPE g gauge', '', '# HELP c_total help', '# TYPE c_total counter', ''].join('\n'));
  });
});
