import { BackgroundWork } from './background-work';

describe('BackgroundWork', () => {
  it('holds work back until the instance serves, then starts it once, in order', () => {
    const background = new BackgroundWork();
    const started: string[] = [];
    background.whenServing(() => started.push('poller'));
    background.whenServing(() => started.push('worker'));
    expect(started).toEqual([]);
    background.begin();
    expect(started).toEqual(['poller', 'worker']);
    background.begin();
    expect(started).toEqual(['poller', 'worker']);
  });

  it('starts work registered after the instance began serving at once', () => {
    const background = new BackgroundWork();
    background.begin();
    const started: string[] = [];
    background.whenServing(() => started.push('late worker'));
    expect(started).toEqual(['late worker']);
  });
});
