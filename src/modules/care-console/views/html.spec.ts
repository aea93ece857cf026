import { escapeHtml, html } from './html';

describe(html.name, () => {
  it('escapes every interpolated value, attributes included', () => {
    const name = `<script>alert("x")</script>' onmouseover='x`;
    expect(html`<p title="${name}">${name}</p>`.value).toBe(
      `<p title="${escapeHtml(name)}">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onmouseover=&#39;x</p>`,
    );
  });

  it('keeps nested html and joins arrays, dropping null, undefined and false', () => {
    const items = ['a&b', 'c'].map((x) => html`<li>${x}</li>`);
    expect(html`<ul>${items}${null}${undefined}${false}</ul>`.value).toBe('<ul><li>a&amp;b</li><li>c</li></ul>');
  });
});
