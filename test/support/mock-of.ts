/**
 * A typed mock of the members a test gives (`jest.fn()`s and plain values); any other member is
 * absent, so a call to it fails the test. The unit specs' one way to stand in for a collaborator.
 */
export function mockOf<T>(members: Partial<jest.Mocked<T>>): jest.Mocked<T> {
  return members as jest.Mocked<T>;
}
