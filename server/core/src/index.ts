export * from './reader.js';
export * from './stats.js';
export * from './stats-intervals.js';
export { createApp } from './app.js';
export { systemMetrics } from './metrics/system-metrics.js';
export type { App, AppOptions } from './app.js';
export type { ClientInfo } from './app.js';
export {
  CORE_CONFIG_KEYS,
  ConfigError,
  ConfigReader,
  collectConfig,
  deepFreeze,
  defaultCoreConfig,
  loadCoreConfig,
  readMode,
} from './config.js';
export type { ConfigKeyDoc, ConfigSource, CoreConfig, CoreConfigOverrides, IntrospectionMode, LogFormat, LogLevel, Mode } from './config.js';
export { createLogger } from './logger.js';
export type { Logger } from './logger.js';
export { installGracefulShutdown, startHttpServer } from './http-server.js';
export { runServerMain } from './server-main.js';
export type { ServerEntry, StartedServer } from './server-main.js';
export type { RunningServer } from './http-server.js';
export * from './errors.js';
export * from './date-time.js';
export { matchesLike, parseLikePattern } from './like-pattern.js';
export { loadSchemaSdl } from './schema-sdl.js';
export * from './console-assets.js';
export * from './console-sign-in.js';
export * from './count-limit.js';
export * from './cursor.js';
export * from './event-record.js';
export * from './duration.js';
export * from './filter-translation.js';
export * from './text-operators.js';
export * from './filter-work.js';
export * from './heap-tuning.js';
export * from './tracing.js';
export { GRAPHIQL_SESSION_SCRIPT } from './graphiql-session.js';
export type { ChangeBatch, ChangeFeed, ChangeListener } from './live/change-feed.js';
