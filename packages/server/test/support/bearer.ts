// A raw request with a bearer token, for tests that need the plain Response (streams, status,
// headers) rather than the OpenAPI-checked client.
export function bearerCall(baseUrl: () => string) {
  return (method: string, path: string, token: string, body?: unknown): Promise<Response> =>
    fetch(`${baseUrl()}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
}
