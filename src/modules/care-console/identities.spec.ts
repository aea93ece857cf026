import { identitiesOf, identityValue, maskedEmail, maskedTail } from './identities';

describe(identitiesOf.name, () => {
  it('masks an SSN and an ITIN to their last four in the SSN shape, each revealable as itself', () => {
    expect(identitiesOf({ ssn: '123456789' })).toEqual([{ label: 'SSN', masked: '•••-••-6789', field: 'ssn' }]);
    expect(identitiesOf({ itin: '912345678' })).toEqual([{ label: 'ITIN', masked: '•••-••-5678', field: 'itin' }]);
  });

  it('offers no reveal of an SSN known by its last four only: the mask shows all of it', () => {
    expect(identitiesOf({ ssnSuffix: '7752' })).toEqual([{ label: 'SSN (last four only)', masked: '•••-••-7752', field: null }]);
  });

  it('masks a Matricula ID in its own shape, never shows a short one whole, and lists an added ITIN beside it', () => {
    expect(identitiesOf({ matriculaId: 'MX0424507752', itin: '912345678' })).toEqual([
      { label: 'Matricula ID', masked: '••••••••7752', field: 'matricula' },
      { label: 'ITIN', masked: '•••-••-5678', field: 'itin' },
    ]);
    expect(identitiesOf({ matriculaId: 'AB12' })[0]?.masked).toBe('••12');
    expect(identitiesOf({ matriculaId: 'AB123' })[0]?.masked).toBe('•••23');
  });

  it('lists nothing for a user without an identity', () => {
    expect(identitiesOf({})).toEqual([]);
  });
});

describe(identityValue.name, () => {
  it('reads the field named, and nothing else', () => {
    const id = { matriculaId: 'MX0424507752', itin: '912345678', ssnSuffix: '7752' };
    expect(identityValue(id, 'matricula')).toBe('MX0424507752');
    expect(identityValue(id, 'itin')).toBe('912345678');
    expect(identityValue(id, 'ssn')).toBeUndefined();
  });
});

describe(maskedEmail.name, () => {
  it.each([
    ['maria.lopez@example.com', 'm•••@example.com'],
    ['a@b.co', 'a•••@b.co'],
    ['odd"@local@example.com', 'o•••@example.com'],
    ['@example.com', '•••'],
    ['no-at-sign', '•••'],
  ])('%s → %s', (address, masked) => {
    expect(maskedEmail(address)).toBe(masked);
  });
});

describe(maskedTail.name, () => {
  it.each([
    ['5125550199', '••••••0199'],
    ['+15125550199', '••••••••0199'],
    ['0199', '••99'],
    ['7', '•'],
  ])('%s → %s', (number, masked) => {
    expect(maskedTail(number)).toBe(masked);
  });
});
