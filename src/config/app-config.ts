import { Env, loadEnv } from './env';
import { loadServiceConfig, ServiceConfig, ServiceConfigError } from './service-config';

/** The validated configuration: environment plus the programs and partners of SERVICE_CONFIG. */
export class AppConfig {
  constructor(
    readonly env: Env,
    readonly service: ServiceConfig,
  ) {}

  static load(source: NodeJS.ProcessEnv = process.env): AppConfig {
    const env = loadEnv(source);
    const production = env.appMode === 'production';
    if (production && !source.SERVICE_CONFIG) {
      throw new ServiceConfigError('APP_MODE=production requires SERVICE_CONFIG (the shipped sandbox configuration is refused)');
    }
    return new AppConfig(env, loadServiceConfig(env.serviceConfigPath, source, { production }));
  }

  get isSandbox(): boolean {
    return this.env.appMode === 'sandbox';
  }
}
