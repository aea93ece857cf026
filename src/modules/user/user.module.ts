import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UserAddress } from './entities/user-address.entity';
import { UserPhone } from './entities/user-phone.entity';
import { User } from './entities/user.entity';
import { UserRecordsService } from './services/user-records.service';

/** Users, their addresses and phones; UserRecordsService is the only code that reads or writes their columns. */
@Module({
  imports: [TypeOrmModule.forFeature([User, UserAddress, UserPhone])],
  providers: [UserRecordsService],
  exports: [UserRecordsService],
})
export class UserModule {}
