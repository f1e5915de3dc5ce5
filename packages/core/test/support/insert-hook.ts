// A collection whose `insertMany` runs hooks around the real insert: another writer acting just
// before a write, or just after it (whether it succeeded or failed).
import type { Collection, Document } from 'mongodb';

export interface InsertHooks {
  before?: () => Promise<void>;
  after?: () => Promise<void>;
}

export function withInsertHooks<T extends Document>(collection: Collection<T>, hooks: InsertHooks): Collection<T> {
  return new Proxy(collection, {
    get(real, property, receiver) {
      if (property !== 'insertMany') return Reflect.get(real, property, receiver);
      return async (...args: Parameters<typeof real.insertMany>) => {
        await hooks.before?.();
        try {
          return await real.insertMany(...args);
        } finally {
          await hooks.after?.();
        }
      };
    },
  });
}
