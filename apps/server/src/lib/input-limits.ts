/**
 * How much the server lets an uploaded archive, image or staged upload cost it, in one place. Each limit is checked
 * before the work it bounds (a header, a declared size, a count) and again while the work runs (bytes actually
 * inflated), so a file that lies about itself stops at the limit instead of at the machine's memory.
 *
 * The limits the console also shows (frames of a boot animation, wallpaper pixels, CSV rows, upload sizes) are in
 * `@cpc/contracts`; they are named here beside the server-only ones.
 */
export {
  CUSTOM_ZIP_MAX_FRAME_BYTES,
  CUSTOM_ZIP_MAX_FRAMES,
  CUSTOM_ZIP_MAX_TOTAL_BYTES,
  WALLPAPER_MAX_BYTES,
  WALLPAPER_MAX_PIXELS,
  PACKAGE_MAX_BYTES,
  OCR_MAX_BYTES,
} from '@cpc/contracts';
export { IMPORT_MAX_BYTES, IMPORT_MAX_ROWS } from '@cpc/contracts/device';

const MB = 1024 * 1024;
const GB = 1024 * MB;

/**
 * The most an APK entry the server reads may inflate to. A real AndroidManifest.xml is tens of KB, a large app's
 * resources.arsc some tens of MB, a v1 signature block a few KB, a launcher icon under 1 MB.
 */
export const APK_ENTRY_MAX_BYTES = {
  manifest: 8 * MB,
  resources: 64 * MB,
  certificate: 1 * MB,
  icon: 1 * MB,
} as const;

/** A deflated entry larger than ARCHIVE_RATIO_FROM_BYTES may be at most this many times its compressed size. */
export const ARCHIVE_MAX_RATIO = 200;
/** Below this inflated size the ratio is not checked (a small file of zeros compresses a thousandfold). */
export const ARCHIVE_RATIO_FROM_BYTES = 1 * MB;
/** A zip's central directory: at most this many entries and bytes (an APK of a large app has ~20,000 entries). */
export const ARCHIVE_MAX_ENTRIES = 65_535;
export const ARCHIVE_MAX_DIRECTORY_BYTES = 16 * MB;

/**
 * Archives opened at once on this node (APKs, frames zips), each holding at most its entry limits in memory; more
 * wait their turn, and beyond ARCHIVE_PARSE_QUEUE waiting a request is refused with 429.
 */
export const ARCHIVE_PARSE_CONCURRENCY = 2;
export const ARCHIVE_PARSE_QUEUE = 16;

/** An OCR image: at most this many pixels (read from its header; a 48 MP phone photo passes). */
export const OCR_MAX_PIXELS = 50_000_000;

/**
 * Unfinished chunked package uploads one tenant may keep at once, by count and by their declared sizes: room for a
 * few packages in flight (three of the largest, 2 GiB each) and no more; they expire 24 hours after they began.
 */
export const PACKAGE_UPLOADS_MAX_UNFINISHED = 8;
export const PACKAGE_UPLOADS_MAX_UNFINISHED_BYTES = 6 * GB;
