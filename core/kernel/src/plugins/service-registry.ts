import type { HearthPlugin, ServiceRef, ServiceRegistry } from '@hearth/plugin-api';

/**
 * The services plugins provide one another (`provides` / `requires` / `optional` in the
 * manifest). The loader already checked that every required service has an enabled provider
 * and applied providers first; this enforces the declarations at run time.
 */
export class ServiceDirectory {
  private readonly implementations = new Map<string, { provider: string; implementation: unknown }>();

  /** The registry one plugin sees in `apply`. */
  registryFor(plugin: HearthPlugin): ServiceRegistry {
    const declared = (refs: ReadonlyArray<string | ServiceRef<unknown>> | undefined) =>
      new Set((refs ?? []).filter((r): r is ServiceRef<unknown> => typeof r !== 'string').map((r) => r.id));
    const provides = declared(plugin.provides);
    const requires = declared(plugin.requires);
    const optional = declared(plugin.optional);
    return {
      provide: (ref, implementation) => {
        if (!provides.has(ref.id)) throw new Error(`plugin "${plugin.name}" provides "${ref.id}" without listing it in "provides"`);
        if (this.implementations.has(ref.id)) throw new Error(`plugin "${plugin.name}" provides "${ref.id}" twice`);
        this.implementations.set(ref.id, { provider: plugin.name, implementation });
      },
      get: <T>(ref: ServiceRef<T>): T => {
        if (!requires.has(ref.id)) throw new Error(`plugin "${plugin.name}" uses the service "${ref.id}" without listing it in "requires"`);
        const found = this.implementations.get(ref.id);
        if (!found)
          throw new Error(`the service "${ref.id}" that plugin "${plugin.name}" requires was not provided by its plugin's apply()`);
        return found.implementation as T;
      },
      optional: <T>(ref: ServiceRef<T>): T | undefined => {
        if (!optional.has(ref.id) && !requires.has(ref.id))
          throw new Error(`plugin "${plugin.name}" uses the service "${ref.id}" without listing it in "optional"`);
        return this.implementations.get(ref.id)?.implementation as T | undefined;
      },
    };
  }
}
