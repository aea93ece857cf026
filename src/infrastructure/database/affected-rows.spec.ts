import { affectedRows } from './affected-rows';

describe(affectedRows.name, () => {
  it("reads TypeORM's [rows, affected] answer to an UPDATE or DELETE by its count, not its length", () => {
    expect(affectedRows([[], 0])).toBe(0);
    expect(affectedRows([[], 3])).toBe(3);
    expect(affectedRows([[{ id: 'a' }], 1])).toBe(1);
  });

  it("counts the rows of any other statement's answer, and nothing in what is not a list", () => {
    expect(affectedRows([{ id: 'a' }, { id: 'b' }])).toBe(2);
    expect(affectedRows([])).toBe(0);
    expect(affectedRows(undefined)).toBe(0);
  });
});
