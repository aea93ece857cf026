import { rotateRequest } from './keys-rotate';

describe(rotateRequest.name, () => {
  it.each<[string[], ReturnType<typeof rotateRequest>]>([
    [[], { kind: 'rotate', blindIndex: false }],
    [['--blind-index'], { kind: 'rotate', blindIndex: true }],
    [['--stage'], { kind: 'stage' }],
    [['--promote'], { kind: 'promote', rolloutSeconds: undefined }],
    [['--promote', '--rollout-seconds', '0'], { kind: 'promote', rolloutSeconds: 0 }],
    [['--promote', '--rollout-seconds=600'], { kind: 'promote', rolloutSeconds: 600 }],
    [['--revoke', 'sig-1'], { kind: 'revoke', kid: 'sig-1' }],
  ])('%j asks for %j', (args, request) => {
    expect(rotateRequest(args)).toEqual(request);
  });

  it.each<[string[], RegExp]>([
    // A misspelt step would otherwise print a one-step rotation, which breaks a deployment of several instances.
    [['--stag'], /Unknown option '--stag'/],
    [['--bogus'], /Unknown option '--bogus'/],
    [['stage'], /Unexpected argument 'stage'/],
    [['--stage', '--promote'], /--stage and --promote cannot go together/],
    [['--revoke', 'sig-1', '--stage'], /cannot go together/],
    [['--stage', '--blind-index'], /--blind-index goes only with a one-step rotation/],
    [['--rollout-seconds', '5'], /--rollout-seconds goes only with --promote/],
    [['--promote', '--rollout-seconds', '1.5'], /whole seconds/],
    [['--promote', '--rollout-seconds=-3'], /whole seconds/],
    [['--revoke'], /argument missing/],
  ])('%j is refused', (args, message) => {
    expect(() => rotateRequest(args)).toThrow(message);
  });
});
