import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UserAddress } from './entities/user-address.entity';
import { UserPhone } from './entities/user-phone.entity';
import { User } from './entities/user.entity';
import { UserRepository } from './repositories/user.repository';

/** Users, their addresses and phones; UserRepository is the only code that reads or writes their columns. */
@Module({
  imports: [TypeOrmModule.forFeature([User, UserAddress, UserPhone])],
  providers: [UserRepository],
  exports: [UserRepository],
})
export class UserModule {}
