// Unit tests of the pure pieces: error → reply mapping, TypeBox errors → field details, wire-string
// coercion, scope rules, Prometheus text.
import { ConflictError, NotFoundError, ValidationError } from '@herald/core';
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { hasScope, SCOPES } from '../src/auth/scopes.js';
import { UnauthorizedError } from '../src/errors/api-errors.js';
import { toErrorReply } from '../src/errors/error-reply.js';
import { Counter, Histogram, renderMetrics } from '../src/metrics/prometheus.js';
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

describe('Prometheus text', () => {
  it('renders counters and cumulative histogram buckets with escaped labels', () => {
    const counter = new Counter('c_total', 'help');
    counter.inc({ route: '/a"b' });
    counter.inc({ route: '/a"b' });
    const histogram = new Histogram('h_seconds', 'help', [0.1, 1]);
    histogram.observe({}, 0.05);
    histogram.observe({}, 0.5);
    const text = renderMetrics([counter, histogram]);
    expect(text).toContain('c_total{route="/a\\"b"} 2');
    expect(text).toContain('h_seconds_bucket{le="0.1"} 1');
    expect(text).toContain('h_seconds_bucket{le="1"} 2');
    expect(text).toContain('h_seconds_bucket{le="+Inf"} 2');
    expect(text).toContain('h_seconds_count 2');
    expect(text.endsWith('\n')).toBe(true);
  });
});
