// Real HTTP against the host on loopback. Every response is checked against the served OpenAPI
// document before the test sees it, so the whole suite doubles as a contract test of the document.
import { OpenApiResponseValidator, type OpenApiDocument } from './openapi-validator.js';

export interface ApiResponse<Body = unknown> {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body; undefined when there is none. */
  body: Body;
}

export interface RequestOptions {
  token?: string;
  /** Serialized as JSON with content-type application/json. */
  json?: unknown;
  /** Sent as is (with the given headers). */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export class ApiClient {
  private validators: Array<{ prefix: string; validator: OpenApiResponseValidator }> = [];

  constructor(
    readonly baseUrl: string,
    readonly defaultToken?: string,
  ) {}

  /** Loads the served documents; from then on every response is validated. */
  async loadOpenApi(): Promise<void> {
    for (const prefix of ['/api/v0.9', '/api/v1']) {
      const response = await fetch(`${this.baseUrl}${prefix}/openapi.json`);
      if (response.status !== 200) throw new Error(`${prefix}/openapi.json answered ${response.status}`);
      this.validators.push({ prefix, validator: new OpenApiResponseValidator((await response.json()) as OpenApiDocument) });
    }
  }

  get validatedResponses(): number {
    return this.validators.reduce((sum, { validator }) => sum + validator.checked, 0);
  }

  withToken(token: string | undefined): ApiClient {
    const client = new ApiClient(this.baseUrl, token);
    client.validators = this.validators;
    return client;
  }

  async request<Body = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<Body>> {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    const token = 'token' in options ? options.token : this.defaultToken;
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | Buffer | undefined = options.rawBody;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown;
    if (text.length > 0 && (response.headers.get('content-type') ?? '').includes('application/json')) parsed = JSON.parse(text);
    for (const { prefix, validator } of this.validators) {
      if (!path.startsWith(`${prefix}/`)) continue;
      const problems = validator.validate(method, path, response.status, parsed);
      if (problems && problems.length > 0) {
        throw new Error(`response does not match the OpenAPI document:\n${problems.join('\n')}\nbody: ${text}`);
      }
    }
    return { status: response.status, headers: response.headers, text, body: parsed as Body };
  }

  get<Body = unknown>(path: string, options?: RequestOptions) {
    return this.request<Body>('GET', path, options);
  }
  post<Body = unknown>(path: string, json?: unknown, options: RequestOptions = {}) {
    return this.request<Body>('POST', path, { ...options, ...(json === undefined ? {} : { json }) });
  }
  put<Body = unknown>(path: string, json?: unknown, options: RequestOptions = {}) {
    return this.request<Body>('PUT', path, { ...options, ...(json === undefined ? {} : { json }) });
  }
  delete<Body = unknown>(path: string, options?: RequestOptions) {
    return this.request<Body>('DELETE', path, options);
  }
}
