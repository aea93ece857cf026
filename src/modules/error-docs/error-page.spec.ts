import { escapeHtml, renderErrorPage } from './error-page';

describe(renderErrorPage.name, () => {
  it('anchors each row by code and subCode and escapes every description', () => {
    const sut = renderErrorPage([{ httpStatus: 400, code: 200, subCode: 0, description: '<property name> is required & "quoted"', docUrl: 'x' }]);
    expect(sut).toContain('<tr id="200-0"><td>400</td><td>200</td><td>0</td><td>&lt;property name&gt; is required &amp; &quot;quoted&quot;</td></tr>');
    expect(sut).not.toMatch(/<script/i);
  });

  it('escapes the five HTML specials', () => {
    expect(escapeHtml(`<a href='x'>&"</a>`)).toBe('&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;');
  });
});
