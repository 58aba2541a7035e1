/**
 * Blocked gzip (BGZF, the SAM/BAM specification §4.1, htslib's `bgzip`): a file of independent gzip members
 * of at most 64 KiB each, every member's size written in its header's extra field ("BC"). It is an ordinary
 * gzip file (gzip -d, zcat read it), and a reader finds every block from the headers alone, so a frame can
 * be read by inflating just the blocks that hold its line: compressed recordings stay seekable.
 */
import * as zlib from 'node:zlib';

/** Uncompressed bytes per block (htslib's BGZF_BLOCK_SIZE: leaves room for incompressible data). */
export const BGZF_BLOCK_DATA = 0xff00;
/** Largest block on disk (BSIZE + 1 ≤ 2¹⁶). */
export const BGZF_MAX_BLOCK = 0x10000;
const HEADER_BYTES = 18;
const TRAILER_BYTES = 8;
/** The empty block htslib writes last: a reader that sees it knows the file was not truncated. */
export const BGZF_EOF = Buffer.from('1f8b08040000000000ff0600424302001b0003000000000000000000', 'hex');

/** Gzip magic bytes (RFC 1952 §2.3.1). */
export const isGzip = (b: Uint8Array): boolean => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;

/** One BGZF block holding `data` (≤ BGZF_BLOCK_DATA bytes). */
export function bgzfBlock(data: Uint8Array): Buffer {
  let cdata = zlib.deflateRawSync(data, { level: 6 });
  if (cdata.length + HEADER_BYTES + TRAILER_BYTES > BGZF_MAX_BLOCK) cdata = zlib.deflateRawSync(data, { level: 0 }); // stored: +5 bytes
  const size = HEADER_BYTES + cdata.length + TRAILER_BYTES;
  const out = Buffer.allocUnsafe(size);
  // ID1 ID2 CM=deflate FLG=FEXTRA, MTIME 0, XFL 0, OS unknown, XLEN 6, subfield "BC" of 2 bytes: BSIZE = size − 1
  out.set([0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, 0x42, 0x43, 2, 0], 0);
  out.writeUInt16LE(size - 1, 16);
  out.set(cdata, HEADER_BYTES);
  out.writeUInt32LE(crc32(data), size - 8);
  out.writeUInt32LE(data.length, size - 4);
  return out;
}

/**
 * Size on disk of the BGZF block starting at buf[pos] (buf holds bytes up to `end`), null when more bytes
 * are needed to tell, or a reason why it is not one: a plain gzip member has no "BC" size field, so it cannot
 * be split without inflating it.
 */
export function bgzfBlockSize(buf: Uint8Array, pos: number, end = buf.length): number | string | null {
  if (end - pos < 12) return end - pos >= 2 && !isGzip(buf.subarray(pos, pos + 2)) ? 'is not a gzip member' : null;
  if (buf[pos] !== 0x1f || buf[pos + 1] !== 0x8b) return 'is not a gzip member';
  if (buf[pos + 2] !== 8) return 'uses a compression method other than deflate';
  if (!(buf[pos + 3] & 4)) return PLAIN;
  const xlen = buf[pos + 10] | (buf[pos + 11] << 8);
  if (end - pos < 12 + xlen) return null;
  // the BC subfield may sit among others; htslib writes it alone (XLEN 6)
  for (let p = pos + 12; p + 4 <= pos + 12 + xlen; ) {
    const slen = buf[p + 2] | (buf[p + 3] << 8);
    if (buf[p] === 0x42 && buf[p + 1] === 0x43 && slen === 2) return (buf[p + 4] | (buf[p + 5] << 8)) + 1;
    p += 4 + slen;
  }
  return PLAIN;
}
const PLAIN = 'is plain gzip, not blocked gzip (BGZF: no block-size field)';

/**
 * Inflates one block; zlib checks its CRC-32 and length (a corrupt block throws). `maxOutput` bounds what a
 * damaged or hostile block may inflate to (a BGZF block holds at most 64 KiB). zlib writes into one buffer of
 * maxOutput + 1 bytes (its default 16 KiB chunks meant four buffers and their concatenation per block; the byte
 * over: a full buffer makes zlib allocate a further one before it finds the stream done).
 */
export function inflateBlock(block: Uint8Array, maxOutput = BGZF_MAX_BLOCK): Buffer {
  return zlib.gunzipSync(block, { maxOutputLength: maxOutput, chunkSize: maxOutput + 1 });
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** zlib's own CRC-32 (Node ≥ 20.15 and 22.2); not in every Node the extension host runs. */
const nativeCrc32 = (zlib as unknown as { crc32?: (data: Uint8Array, value: number) => number }).crc32;

/** CRC-32 of RFC 1952 §8, continuing from `previous` (zlib's when the running Node has it, else a table). */
export function crc32(data: Uint8Array, previous = 0): number {
  if (nativeCrc32) return nativeCrc32(data, previous) >>> 0;
  let c = (previous ^ 0xffffffff) >>> 0;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
