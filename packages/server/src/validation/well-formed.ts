// Finds text that cannot be stored as sent anywhere in a request part. JSON's `\uD800` escapes (and
// percent-decoded query strings) produce strings with unpaired surrogates; MongoDB and the wire would
// silently store and send U+FFFD instead. A NUL character (`\u0000`) is refused too: PostgreSQL-backed
// stores (FerretDB's PostgreSQL handler, the default) cannot hold it in text, and C-based receivers
// end strings there. Such input is a 400 naming where it is (pure), as publish refuses it in `data`.
import type { FieldIssue } from './field-issues.js';

const MESSAGE = 'must be well-formed Unicode (no unpaired surrogates)';
const NUL_MESSAGE = 'must not contain NUL characters';
/** Enough to show the caller what is wrong without echoing a whole payload. */
const MAX_ISSUES = 20;

/** ES2024's String.prototype.isWellFormed (Node ≥ 20), typed here because the build targets ES2023. */
function isWellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

function join(parent: string, key: string): string {
  return parent ? `${parent}.${key}` : key;
}

/** Walks iteratively, so a deeply nested body cannot exhaust the stack. */
export function illFormedTextIssues(value: unknown, rootName: string): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const pending: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  while (pending.length > 0 && issues.length < MAX_ISSUES) {
    const { value: current, path } = pending.pop()!;
    if (typeof current === 'string') {
      if (!isWellFormed(current)) issues.push({ field: path || rootName, message: MESSAGE });
      else if (current.includes('\u0000')) issues.push({ field: path || rootName, message: NUL_MESSAGE });
    } else if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index -= 1) pending.push({ value: current[index], path: join(path, String(index)) });
    } else if (typeof current === 'object' && current !== null) {
      for (const [key, item] of Object.entries(current).reverse()) {
        if (!isWellFormed(key) || key.includes('\u0000')) {
          issues.push({ field: path || rootName, message: `has a property name that ${isWellFormed(key) ? NUL_MESSAGE : MESSAGE}` });
          continue;
        }
        pending.push({ value: item, path: join(path, key) });
      }
    }
  }
  return issues.slice(0, MAX_ISSUES);
}
