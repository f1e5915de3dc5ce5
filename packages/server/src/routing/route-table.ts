// Which methods each registered path template answers, so that a request the router cannot place
// can be told apart: a known path with an undeclared method (405 + Allow) from an unknown path
// (404), and an over-long path segment can be named by its parameter. Fed by an onRoute hook.

interface Template {
  url: string;
  pattern: RegExp;
  params: string[];
  methods: Set<string>;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `/a/:id/b` → `^/a/([^/]+)/b$` and the parameter names, in order. */
function compile(url: string): { pattern: RegExp; params: string[] } {
  const params: string[] = [];
  const source = url
    .split('/')
    .map((segment) => {
      if (segment.startsWith(':')) {
        params.push(segment.slice(1));
        return '([^/]+)';
      }
      if (segment === '*') {
        params.push('*');
        return '(.*)';
      }
      return escapeRegExp(segment);
    })
    .join('/');
  return { pattern: new RegExp(`^${source}$`), params };
}

export class RouteTable {
  private readonly templates = new Map<string, Template>();

  add(methods: string | readonly string[], url: string): void {
    let template = this.templates.get(url);
    if (!template) {
      template = { url, methods: new Set(), ...compile(url) };
      this.templates.set(url, template);
    }
    for (const method of typeof methods === 'string' ? [methods] : methods) template.methods.add(method.toUpperCase());
    // Fastify answers HEAD wherever it answers GET.
    if (template.methods.has('GET')) template.methods.add('HEAD');
  }

  /** Methods declared for the request path (query excluded), sorted; empty for an unknown path. */
  allowedMethods(path: string): string[] {
    const methods = new Set<string>();
    for (const template of this.templates.values()) {
      if (template.pattern.test(path)) for (const method of template.methods) methods.add(method);
    }
    return [...methods].sort();
  }

  /** The first parameter whose raw segment is longer than `max` in a template matching `path`. */
  overlongParameter(path: string, max: number): string | undefined {
    for (const template of this.templates.values()) {
      const match = template.pattern.exec(path);
      if (!match) continue;
      const index = match.slice(1).findIndex((value) => value.length > max);
      if (index >= 0) return template.params[index];
    }
    return undefined;
  }
}

/** The path part of a request URL, as sent (still percent-encoded). */
export function pathOf(url: string): string {
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}
