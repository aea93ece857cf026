import { ERROR_PAGE_CSP, escapeHtml, renderErrorPage } from './error-page';

describe(renderErrorPage.name, () => {
  const entry = { httpStatus: 400, code: 200, subCode: 0, description: '<property name> is required & "quoted"', docUrl: 'x' };

  it('anchors each row by code and subCode and escapes every text: description, cause, what to do', () => {
    const sut = renderErrorPage([{ ...entry, guidance: [{ cause: 'A <field> is absent', action: 'Add "it"' }], retry: 'afterFix' }]);
    expect(sut).toContain(
      '<tr id="200-0"><td>400</td><td>200</td><td>0</td><td>&lt;property name&gt; is required &amp; &quot;quoted&quot;</td>' +
        '<td>A &lt;field&gt; is absent</td><td>Add &quot;it&quot;</td><td class="retry-afterFix">Only corrected</td></tr>',
    );
    expect(sut).not.toMatch(/<script/i);
  });

  it("lists the causes and actions of a triple's several rows, each in its own item", () => {
    const sut = renderErrorPage([
      {
        ...entry,
        guidance: [
          { cause: 'first cause', action: 'first action' },
          { cause: 'second cause', action: 'second action' },
        ],
        retry: 'yes',
      },
    ]);
    expect(sut).toContain('<td><ul><li>first cause</li><li>second cause</li></ul></td><td><ul><li>first action</li><li>second action</li></ul></td>');
    expect(sut).toContain('<td class="retry-yes">Yes, the identical call</td>');
  });

  it('escapes the five HTML specials', () => {
    expect(escapeHtml(`<a href='x'>&"</a>`)).toBe('&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;');
  });
});

describe('ERROR_PAGE_CSP', () => {
  it("allows the page's one style block by its hash and nothing else", () => {
    const { createHash } = jest.requireActual<typeof import('node:crypto')>('node:crypto');
    const style = /<style>([^<]*)<\/style>/.exec(renderErrorPage([]))![1];
    expect(ERROR_PAGE_CSP).toContain(`style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    expect(ERROR_PAGE_CSP).toMatch(/^default-src 'none';/);
    expect(ERROR_PAGE_CSP).not.toContain('unsafe-inline');
  });
});
