import { nameTokens, personNameTokens, reorderSdnName, sdnNameTokens } from './name-normalizer';

describe(nameTokens.name, () => {
  it.each([
    ['José Núñez', ['jose', 'nunez']],
    ['GRÜNEWALD-OSTERHAGEN, Søren', ['grunewald', 'osterhagen', 'soren']],
    ['Łukasz Straße', ['lukasz', 'strasse']],
    ["O'Brien D’Angelo", ['obrien', 'dangelo']],
    ['  AL-ZAYDI,  Shibl   Muhsin. ', ['al', 'zaydi', 'shibl', 'muhsin']],
    ['Ǆemal Çelik', ['dzemal', 'celik']],
    ['Ｊｏｓé', ['jose']],
    ['***', []],
  ])('%s → %j', (raw, tokens) => {
    expect(nameTokens(raw)).toEqual(tokens);
  });

  it('folds composed and decomposed spellings alike', () => {
    expect(nameTokens('Nun\u0303ez')).toEqual(nameTokens('Nu\u00f1ez'));
  });
});

describe(reorderSdnName.name, () => {
  it.each([
    ['NUNEZ VALDERRAMOS, Jose', 'Jose NUNEZ VALDERRAMOS'],
    ['QUILLFEATHER,Bartholomew Ignatius', 'Bartholomew Ignatius QUILLFEATHER'],
    ['HALVORSEN BRISTOW', 'HALVORSEN BRISTOW'],
    ['DOE, John, Jr.', 'DOE, John, Jr.'],
  ])('%s → %s', (name, reordered) => {
    expect(reorderSdnName(name)).toBe(reordered);
  });
});

describe(sdnNameTokens.name, () => {
  it('gives an individual\'s "LAST, First Middle" in reading order', () => {
    expect(sdnNameTokens('QUILLFEATHER, Bartholomew Ignatius')).toEqual(['bartholomew', 'ignatius', 'quillfeather']);
  });
});

describe(personNameTokens.name, () => {
  it('joins first, middle and last names, the middle one only when given', () => {
    expect(personNameTokens({ firstName: 'José', middleName: 'María', lastName: 'Núñez-Ruiz' })).toEqual(['jose', 'maria', 'nunez', 'ruiz']);
    expect(personNameTokens({ firstName: 'Ana', lastName: 'Peña' })).toEqual(['ana', 'pena']);
  });
});
