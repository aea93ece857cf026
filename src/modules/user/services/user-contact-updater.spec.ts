import { WriteBatch } from '../../../infrastructure/database/write-batch';
import type { AddressDto } from '../dtos/address.dto';
import type { PhoneDto } from '../dtos/phone.dto';
import type { ContactRows, UserRepository } from '../repositories/user.repository';
import { UserContactUpdater } from './user-contact-updater';
import { mockOf } from '../../../../test/support/mock-of';

/** Ciphertexts that show their plaintext and row, so a test reads what would be stored. */
const users = mockOf<UserRepository>({
  encryptPhone: jest.fn((rowId: string, number: string) => `enc(${rowId}:${number})`),
  encryptAddress: jest.fn((rowId: string, address: Parameters<UserRepository['encryptAddress']>[1]) => `enc(${rowId}:${address.addressLine1})`),
  phoneIndex: jest.fn((number: string) => `bidx(${number})`),
  decryptPhone: jest.fn((row: Parameters<UserRepository['decryptPhone']>[0]) => ({
    phoneType: row.phoneType,
    number: /:(.*)\)$/.exec(row.numberEnc)?.[1] ?? '',
    isDefault: row.isDefault,
  })),
});

const sut = new UserContactUpdater(users);

function phones(...rows: Array<[id: string, phoneType: string, number: string, isDefault: boolean]>): ContactRows {
  return {
    addresses: [],
    phones: rows.map(([id, phoneType, number, isDefault]) => ({ id, phoneType, isDefault, numberEnc: `enc(${id}:${number})` })) as ContactRows['phones'],
  };
}

const phone = (phoneType: string, number: string, isDefault?: boolean) =>
  ({ phoneType, number, ...(isDefault === undefined ? {} : { isDefault }) }) as PhoneDto;
const view = (contact: ContactRows) => contact.phones.map((p) => [p.phoneType, users.decryptPhone(p).number, p.isDefault]);

describe('user update: phone rules (SERVICE.md)', () => {
  it('one stored phone is updated in place, type included, and stays the default', () => {
    const contact = phones(['p1', 'home', '5125550100', true]);
    const batch = new WriteBatch();
    expect(sut.applyPhone(batch, 'u1', contact, phone('mobile', '5125550111'))).toEqual({ before: '5125550100', after: '5125550111' });
    expect(view(contact)).toEqual([['mobile', '5125550111', true]]);
    expect(contact.phones[0]?.id).toBe('p1');
    expect(batch.size).toBe(1);
  });

  it('with several phones, the phone of the same type is updated and the default stays where it was', () => {
    const contact = phones(['p1', 'home', '5125550100', true], ['p2', 'mobile', '5125550200', false]);
    expect(sut.applyPhone(new WriteBatch(), 'u1', contact, phone('mobile', '5125550222'))).toEqual({ before: '5125550100', after: '5125550100' });
    expect(view(contact)).toEqual([
      ['home', '5125550100', true],
      ['mobile', '5125550222', false],
    ]);
  });

  it('a new type is added, not default unless marked', () => {
    const contact = phones(['p1', 'home', '5125550100', true], ['p2', 'mobile', '5125550200', false]);
    const batch = new WriteBatch();
    expect(sut.applyPhone(batch, 'u1', contact, phone('work', '5125550300'))).toEqual({ before: '5125550100', after: '5125550100' });
    expect(view(contact)).toEqual([
      ['home', '5125550100', true],
      ['mobile', '5125550200', false],
      ['work', '5125550300', false],
    ]);
    expect(batch.size).toBe(1);
  });

  it('isDefault true moves the default to the phone written (the limits then count the new number)', () => {
    const contact = phones(['p1', 'home', '5125550100', true], ['p2', 'mobile', '5125550200', false]);
    const batch = new WriteBatch();
    expect(sut.applyPhone(batch, 'u1', contact, phone('work', '5125550300', true))).toEqual({ before: '5125550100', after: '5125550300' });
    expect(contact.phones.map((p) => p.isDefault)).toEqual([false, false, true]);
    expect(batch.size).toBe(2);
  });

  it('a user without phones gets the first one as default', () => {
    const contact = phones();
    expect(sut.applyPhone(new WriteBatch(), 'u1', contact, phone('mobile', '5125550111'))).toEqual({ before: null, after: '5125550111' });
    expect(contact.phones[0]).toMatchObject({ phoneType: 'mobile', isDefault: true });
  });

  it('the ciphertext of a new row is bound to the id the row is written with', () => {
    const contact = phones(['p1', 'home', '5125550100', true], ['p2', 'mobile', '5125550200', false]);
    sut.applyPhone(new WriteBatch(), 'u1', contact, phone('work', '5125550300'));
    const added = contact.phones[2];
    expect(added?.numberEnc).toBe(`enc(${added?.id}:5125550300)`);
  });
});

describe('user update: address rules (SERVICE.md)', () => {
  const address = (type: string, addressLine1: string, isDefault?: boolean) =>
    ({ type, addressLine1, city: 'Austin', state: 'TX', zipCode: '78701', ...(isDefault === undefined ? {} : { isDefault }) }) as AddressDto;
  const stored = (...rows: Array<[id: string, type: string, isDefault: boolean]>): ContactRows => ({
    phones: [],
    addresses: rows.map(([id, type, isDefault]) => ({ id, type, isDefault, addressEnc: `enc(${id}:old)` })) as ContactRows['addresses'],
  });

  it('the same type is replaced in place; a new type is added', () => {
    const contact = stored(['a1', 'home', true]);
    sut.applyAddress(new WriteBatch(), 'u1', contact, address('home', '9 New St'));
    sut.applyAddress(new WriteBatch(), 'u1', contact, address('mailing', 'PO Box 1'));
    expect(contact.addresses.map((a) => [a.type, a.addressEnc, a.isDefault])).toEqual([
      ['home', 'enc(a1:9 New St)', true],
      ['mailing', `enc(${contact.addresses[1]?.id}:PO Box 1)`, false],
    ]);
  });

  it('isDefault true moves the default; a user with no default gets a home or business one', () => {
    const contact = stored(['a1', 'home', true]);
    sut.applyAddress(new WriteBatch(), 'u1', contact, address('business', '1 Market St', true));
    expect(contact.addresses.map((a) => [a.type, a.isDefault])).toEqual([
      ['home', false],
      ['business', true],
    ]);
    const none = stored(['m1', 'mailing', false]);
    sut.applyAddress(new WriteBatch(), 'u1', none, address('home', '2 Main St'));
    expect(none.addresses.map((a) => [a.type, a.isDefault])).toEqual([
      ['mailing', false],
      ['home', true],
    ]);
  });

  it('a mailing address can never be the default (cards ship to the default): refused before anything is written', () => {
    const contact = stored(['a1', 'home', true]);
    const batch = new WriteBatch();
    expect(() => sut.applyAddress(batch, 'u1', contact, address('mailing', 'PO Box 1', true))).toThrow(
      expect.objectContaining({ key: 'MULTIPLE_DEFAULT_ADDRESSES' }),
    );
    expect(batch.size).toBe(0);
    expect(contact.addresses).toHaveLength(1);
  });
});
