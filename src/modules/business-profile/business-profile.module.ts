import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LockingModule } from '../locking/locking.module';
import { BusinessProfileController } from './controllers/business-profile.controller';
import { BusinessProfileEntity } from './entities/business-profile.entity';
import { BusinessProfileCodec } from './services/business-profile.codec';
import { BusinessProfileService } from './services/business-profile.service';

/** Exports the service only: enrollment writes the profile through it, care reads the business name. */
@Module({
  imports: [AccountsModule, LockingModule, TypeOrmModule.forFeature([BusinessProfileEntity])],
  controllers: [BusinessProfileController],
  providers: [BusinessProfileService, BusinessProfileCodec],
  exports: [BusinessProfileService],
})
export class BusinessProfileModule {}
