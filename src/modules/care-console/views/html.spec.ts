import { escapeHtml, html } from './html';

describe(html.name, () => {
  it('escapes every interpolated value, attributes included', () => {
    const name = `<script>alert("x")</script>' onmouseover='x`;
    expect(html`<p title="${name}">${name}</p>`.value).toBe(
      `<p title="${escapeHtml(name)}">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onmouseover=&#39;x</p>`,
    );
  });

  it('shows bidirectional controls as their code points: a right-to-left override cannot make a value read as another', () => {
    // U+202E reverses what follows it on screen: "moc.knab-eurt@x" would read as "x@true-bank.com".
    expect(escapeHtml('\u202Emoc.knab-eurt@x')).toBe('[U+202E]moc.knab-eurt@x');
    expect(escapeHtml('a\u2066b\u2069c\u200Fd\u061Ce\u202Af')).toBe('a[U+2066]b[U+2069]c[U+200F]d[U+061C]e[U+202A]f');
    expect(escapeHtml('José Núñez 北京')).toBe('José Núñez 北京');
  });

  it('keeps nested html and joins arrays, dropping null, undefined and false', () => {
    const items = ['a&b', 'c'].map((x) => html`<li>${x}</li>`);
    expect(html`<ul>${items}${null}${undefined}${false}</ul>`.value).toBe('<ul><li>a&amp;b</li><li>c</li></ul>');
  });
});
