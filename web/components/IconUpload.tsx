import { Avatar, Button, FileInput, Group, Stack, Text } from '@mantine/core';
import { useState, type CSSProperties } from 'react';
import { M, fill } from '../../common/messages';
import { ICON_ACCEPTED_EXTENSIONS, ICON_MAX_BYTES, ICON_MAX_DIMENSION, ICON_QUALITY } from '../../common/limits';

const ACCEPTED_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/svg+xml'];
const ACCEPT = [...ACCEPTED_TYPES, ...ICON_ACCEPTED_EXTENSIONS.map((e) => `.${e}`)].join(',');

/** Mantine's default error red is too light for AA contrast on white. */
const ERROR_CONTRAST = { '--mantine-color-error': 'var(--mantine-color-red-9)' } as CSSProperties;

/** A message the person can act on; anything else thrown while processing is a processing failure. */
class IconError extends Error {}

/** Bytes held by a base64 data URL. */
function dataUrlBytes(dataUrl: string): number {
  const base64 = dataUrl.slice(dataUrl.indexOf(',') + 1);
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

function readAsDataUrl(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error(M.failedProcessImage));
    reader.readAsDataURL(file);
  });
}

/** Decodes the image from a data URL (the page's content security policy allows data: images, not blob:). */
async function loadImage(file: Blob): Promise<HTMLImageElement> {
  const src = await readAsDataUrl(file);
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => resolve(img);
    img.onerror = () => reject(new Error(M.failedProcessImage));
    img.src = src;
  });
}

/** Draws the image scaled to fit the icon box; png keeps its transparency, everything else becomes jpeg. */
async function resize(file: Blob, asPng: boolean): Promise<string> {
  const img = await loadImage(file);
  const width = img.naturalWidth || ICON_MAX_DIMENSION;
  const height = img.naturalHeight || ICON_MAX_DIMENSION;
  const scale = Math.min(1, ICON_MAX_DIMENSION / width, ICON_MAX_DIMENSION / height);
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(width * scale));
  canvas.height = Math.max(1, Math.round(height * scale));
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error(M.failedProcessImage);
  if (!asPng) {
    // jpeg has no transparency: paint white behind transparent gif pixels.
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
  }
  ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
  return canvas.toDataURL(asPng ? 'image/png' : 'image/jpeg', ICON_QUALITY);
}

/** Checks and shrinks a chosen file into an icon data URL (spec sections 5 and 9). */
export async function processIcon(file: File): Promise<string> {
  const extension = file.name.includes('.') ? file.name.split('.').pop()!.toLowerCase() : '';
  const isImage = file.type.startsWith('image/') || (ICON_ACCEPTED_EXTENSIONS as readonly string[]).includes(extension);
  if (!isImage) throw new IconError(M.invalidFileType);
  if (!(ICON_ACCEPTED_EXTENSIONS as readonly string[]).includes(extension) || (file.type && !ACCEPTED_TYPES.includes(file.type))) {
    throw new IconError(M.invalidImageType);
  }
  // The declared type follows the extension, so the browser decodes what the name says.
  const type = extension === 'svg' ? 'image/svg+xml' : `image/${extension === 'jpg' ? 'jpeg' : extension}`;
  const blob = new Blob([await file.arrayBuffer()], { type });
  let dataUrl: string;
  if (extension === 'svg') {
    // A vector icon stays a vector when it is small enough; otherwise it is drawn as a png.
    const svg = await readAsDataUrl(blob);
    dataUrl = dataUrlBytes(svg) <= ICON_MAX_BYTES ? svg : await resize(blob, true);
  } else {
    dataUrl = await resize(blob, extension === 'png');
  }
  const bytes = dataUrlBytes(dataUrl);
  if (bytes > ICON_MAX_BYTES) throw new IconError(fill(M.imageTooLarge, { size: Math.round(bytes / 1024) }));
  return dataUrl;
}

interface Props {
  value: string | null;
  onChange: (dataUrl: string | null) => void;
  label?: string;
  disabled?: boolean;
}

/** Icon picker: validates, resizes in the browser, previews and produces a data URL. */
export function IconUpload({ value, onChange, label = 'Icon', disabled }: Props) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [file, setFile] = useState<File | null>(null);

  const choose = async (next: File | null) => {
    setFile(next);
    setError(null);
    if (!next) return;
    setBusy(true);
    try {
      onChange(await processIcon(next));
    } catch (err) {
      setError(err instanceof IconError ? err.message : M.failedProcessImage);
      setFile(null);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Stack gap={6} style={ERROR_CONTRAST}>
      <Group align="flex-end" gap="sm" wrap="nowrap">
        {value ? <Avatar src={value} alt="Icon preview" radius="md" size={48} /> : null}
        <FileInput
          label={label}
          placeholder="Choose an image"
          accept={ACCEPT}
          value={file}
          onChange={(f) => void choose(f)}
          error={error}
          disabled={disabled || busy}
          clearable={false}
          style={{ flex: 1 }}
        />
        {value ? (
          <Button
            variant="default"
            onClick={() => {
              onChange(null);
              setFile(null);
              setError(null);
            }}
            disabled={disabled}
          >
            Remove icon
          </Button>
        ) : null}
      </Group>
      {busy ? (
        <Text size="xs" c="dimmed">
          Processing image...
        </Text>
      ) : null}
    </Stack>
  );
}
