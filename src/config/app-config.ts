import { Env, loadEnv } from './env';
import { loadServiceConfig, ServiceConfig } from './service-config';

/** The validated configuration: environment plus the programs and partners of SERVICE_CONFIG. */
export class AppConfig {
  constructor(
    readonly env: Env,
    readonly service: ServiceConfig,
  ) {}

  static load(source: NodeJS.ProcessEnv = process.env): AppConfig {
    const env = loadEnv(source);
    return new AppConfig(env, loadServiceConfig(env.serviceConfigPath, source));
  }

  get isSandbox(): boolean {
    return this.env.appMode === 'sandbox';
  }
}
