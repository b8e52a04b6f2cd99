import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { Core } from './core.ts';

/** What a module says of itself (see `defineModule`). */
export interface ModuleSpec {
  /** The module's folder name. */
  name: string;
  /** The modules whose services this one is given (they must be registered before it: Fastify checks). */
  dependencies?: string[];
  /** Builds the module's services from the core and its dependencies' decorations; decorates what others use. */
  setup?: (app: FastifyInstance, core: Core) => Promise<void> | void;
  /** Its console API routes, registered under /apiAdmin behind the sign-in and permission checks. */
  api?: FastifyPluginAsync;
  /** Routes outside the console API (the open API, the payment gateway's callbacks…), after the payload crypto. */
  root?: FastifyPluginAsync;
}

export interface ServerModule {
  name: string;
  /** The module as a Fastify plugin named `module:<name>`, with its declared dependencies. */
  plugin: FastifyPluginAsync;
  api?: FastifyPluginAsync;
  root?: FastifyPluginAsync;
}

export const modulePluginName = (name: string): string => `module:${name}`;

/**
 * A module registers itself: `buildApp` registers every module's plugin in the order of `modules/index.ts`
 * (fastify-plugin refuses a module whose dependencies are not registered yet), then the root routes, then the
 * console API's routes.
 */
export function defineModule(spec: ModuleSpec): ServerModule {
  const plugin = fp(
    async (app: FastifyInstance) => {
      await spec.setup?.(app, app.core);
    },
    {
      name: modulePluginName(spec.name),
      dependencies: (spec.dependencies ?? []).map(modulePluginName),
      decorators: { fastify: ['core'] },
    },
  );
  return { name: spec.name, plugin, api: spec.api, root: spec.root };
}
