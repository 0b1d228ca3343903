import '@mantine/tiptap/styles.css';
import { Input } from '@mantine/core';
import { RichTextEditor as MantineEditor } from '@mantine/tiptap';
import { useEditor } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';
import { useEffect, useId, useRef } from 'react';

export interface RichTextEditorProps {
  label: string;
  /** HTML; the server sanitises it on every write. */
  value: string;
  onChange: (html: string) => void;
}

/** An empty editor holds one empty paragraph: store that as no description at all. */
function normalise(html: string): string {
  return html === '<p></p>' ? '' : html;
}

/** The rich-text description editor (Mantine TipTap). Loaded on demand: import it through React.lazy. The value is read once, when it mounts. */
export default function RichTextEditor({ label, value, onChange }: RichTextEditorProps) {
  const labelId = useId();
  // The editor is created once; the latest onChange is read through a ref.
  const onChangeRef = useRef(onChange);
  useEffect(() => {
    onChangeRef.current = onChange;
  }, [onChange]);
  const editor = useEditor({
    extensions: [StarterKit.configure({ link: { openOnClick: false, protocols: ['http', 'https', 'mailto'] } })],
    content: value,
    shouldRerenderOnTransaction: true,
    editorProps: {
      attributes: { role: 'textbox', 'aria-multiline': 'true', 'aria-labelledby': labelId },
    },
    onUpdate: ({ editor: e }) => onChangeRef.current(normalise(e.getHTML())),
  });

  return (
    <div>
      <Input.Label id={labelId} mb={4}>
        {label}
      </Input.Label>
      <MantineEditor editor={editor}>
        <MantineEditor.Toolbar>
          <MantineEditor.ControlsGroup>
            <MantineEditor.Bold />
            <MantineEditor.Italic />
            <MantineEditor.Underline />
            <MantineEditor.Strikethrough />
            <MantineEditor.Code />
          </MantineEditor.ControlsGroup>
          <MantineEditor.ControlsGroup>
            <MantineEditor.BulletList />
            <MantineEditor.OrderedList />
            <MantineEditor.Blockquote />
          </MantineEditor.ControlsGroup>
          <MantineEditor.ControlsGroup>
            <MantineEditor.Link />
            <MantineEditor.Unlink />
          </MantineEditor.ControlsGroup>
        </MantineEditor.Toolbar>
        <MantineEditor.Content />
      </MantineEditor>
    </div>
  );
}
