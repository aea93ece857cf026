import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../../config/app-config';
import { dataSourceOptions } from './data-source-options';

@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        ...dataSourceOptions(requireUrl(config), config.env.dbSchema, config.env.dbPoolSize),
        entities: undefined,
        autoLoadEntities: true,
        retryAttempts: 3,
        retryDelay: 500,
      }),
    }),
  ],
})
export class DatabaseModule {}

function requireUrl(config: AppConfig): string {
  if (!config.env.databaseUrl) throw new Error('DATABASE_URL was not resolved before the app started');
  return config.env.databaseUrl;
}
