#ifndef CEXIF_SHIM_H
#define CEXIF_SHIM_H
#include <libexif/exif-data.h>
#include <libexif/exif-utils.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* libexif reads the EXIF block (TIFF header, IFD0, Exif, GPS and interoperability IFDs), with bounds and loop checks.
   These wrappers hide its fixed-size IFD array and its macros from Swift. */

static inline ExifData *cexif_load(const unsigned char *bytes, unsigned int length) {
    ExifData *data = exif_data_new();
    if (!data) return NULL;
    /* Keep the maker note's raw bytes: OpenPhotoKit reads Apple's itself (libexif 0.6.24 garbles its strings). */
    exif_data_unset_option(data, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS);
    exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);
    exif_data_load_data(data, bytes, length);
    return data;
}

static inline void cexif_free(ExifData *data) { exif_data_unref(data); }

/* The entry for `tag` in IFD `ifd` (EXIF_IFD_0, EXIF_IFD_EXIF, EXIF_IFD_GPS …), or NULL. */
static inline ExifEntry *cexif_entry(ExifData *data, int ifd, int tag) {
    if (ifd < 0 || ifd >= EXIF_IFD_COUNT || !data->ifd[ifd]) return NULL;
    return exif_content_get_entry(data->ifd[ifd], (ExifTag)tag);
}

static inline int cexif_big_endian(ExifData *data) { return exif_data_get_byte_order(data) == EXIF_BYTE_ORDER_MOTOROLA; }

/* The i-th component of a numeric entry as a double (rationals divided out); 0 when out of range. */
static inline double cexif_number(ExifData *data, ExifEntry *e, unsigned int i) {
    if (!e || i >= e->components || !e->data) return 0;
    ExifByteOrder o = exif_data_get_byte_order(data);
    unsigned int size = exif_format_get_size(e->format);
    if (size == 0 || (unsigned long)(i + 1) * size > e->size) return 0;
    const unsigned char *p = e->data + i * size;
    switch (e->format) {
    case EXIF_FORMAT_BYTE: return p[0];
    case EXIF_FORMAT_SBYTE: return (signed char)p[0];
    case EXIF_FORMAT_SHORT: return exif_get_short(p, o);
    case EXIF_FORMAT_SSHORT: return exif_get_sshort(p, o);
    case EXIF_FORMAT_LONG: return exif_get_long(p, o);
    case EXIF_FORMAT_SLONG: return exif_get_slong(p, o);
    case EXIF_FORMAT_RATIONAL: { ExifRational r = exif_get_rational(p, o); return r.denominator ? (double)r.numerator / r.denominator : 0; }
    case EXIF_FORMAT_SRATIONAL: { ExifSRational r = exif_get_srational(p, o); return r.denominator ? (double)r.numerator / r.denominator : 0; }
    default: return 0;
    }
}
/* The EXIF block `exif` (libvips' output, with or without the "Exif\0\0" prefix) with the maker note of `source` added
   byte for byte: libvips re-serialises EXIF through libexif, which drops maker notes it cannot write (Apple's, which
   holds a Live Photo's content identifier). Apple's and most makers' notes address their data from their own start,
   so they survive the move. Returns 0 and a block with the prefix in *out (free with free()), or -1 when the source
   has no maker note. */
static inline int cexif_with_maker_note(const unsigned char *exif, unsigned int exif_length, const unsigned char *source,
                                        unsigned int source_length, unsigned char **out, unsigned int *out_length) {
    *out = NULL;
    *out_length = 0;
    ExifData *from = cexif_load(source, source_length);
    if (!from) return -1;
    exif_data_set_option(from, EXIF_DATA_OPTION_DONT_CHANGE_MAKER_NOTE);
    ExifEntry *note = from->ifd[EXIF_IFD_EXIF] ? exif_content_get_entry(from->ifd[EXIF_IFD_EXIF], EXIF_TAG_MAKER_NOTE) : NULL;
    if (!note || !note->data || note->size == 0) { exif_data_unref(from); return -1; }
    ExifData *to = exif_data_new();
    if (!to) { exif_data_unref(from); return -1; }
    exif_data_set_option(to, EXIF_DATA_OPTION_DONT_CHANGE_MAKER_NOTE);
    exif_data_unset_option(to, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);
    exif_data_unset_option(to, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS);
    exif_data_load_data(to, exif, exif_length);
    ExifContent *content = to->ifd[EXIF_IFD_EXIF];
    ExifEntry *old = exif_content_get_entry(content, EXIF_TAG_MAKER_NOTE);
    if (old) exif_content_remove_entry(content, old);
    ExifEntry *entry = exif_entry_new();
    unsigned char *copy = entry ? malloc(note->size) : NULL; /* libexif's default allocator frees with free() */
    if (!copy) {
        if (entry) exif_entry_unref(entry);
        exif_data_unref(to);
        exif_data_unref(from);
        return -1;
    }
    memcpy(copy, note->data, note->size);
    entry->tag = EXIF_TAG_MAKER_NOTE;
    entry->format = EXIF_FORMAT_UNDEFINED;
    entry->components = note->size;
    entry->size = note->size;
    entry->data = copy;
    exif_content_add_entry(content, entry);
    exif_entry_unref(entry);
    exif_data_save_data(to, out, out_length);
    exif_data_unref(to);
    exif_data_unref(from);
    return *out ? 0 : -1;
}

#endif
