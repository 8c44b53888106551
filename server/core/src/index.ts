export * from './reader.js';
export { createApp } from './app.js';
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
export type { RunningServer } from './http-server.js';
export { ErrorCode } from './errors.js';
export { formatTimestampForOutput, parseDateTime } from './date-time.js';
export { matchesLike, parseLikePattern } from './like-pattern.js';
export { loadSchemaSdl } from './schema-sdl.js';
export { LINE_REPAIRS, MAX_EVENT_NESTING_DEPTH, repairEventLine, type LineRepair } from './event-line-repair.js';
