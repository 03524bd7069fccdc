/* onyx-json.h: a small streaming JSON writer for `--json` output. Strings are written
 * as valid UTF-8 whatever the model holds. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _OnyxJson OnyxJson;

OnyxJson *onyx_json_new          (void);
/* Returns the document and frees the writer. */
char     *onyx_json_finish       (OnyxJson *json);
/* Frees a writer whose document is not wanted (for g_autoptr). */
static inline void
onyx_json_free (OnyxJson *json)
{
  g_free (onyx_json_finish (json));
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OnyxJson, onyx_json_free)

void      onyx_json_begin_object (OnyxJson *json);
void      onyx_json_end_object   (OnyxJson *json);
void      onyx_json_begin_array  (OnyxJson *json);
void      onyx_json_end_array    (OnyxJson *json);
/* Inside an object, each value is preceded by its key. */
void      onyx_json_key          (OnyxJson *json, const char *key);
void      onyx_json_string       (OnyxJson *json, const char *value); /* NULL → null */
void      onyx_json_int          (OnyxJson *json, gint64 value);
void      onyx_json_uint         (OnyxJson *json, guint64 value);
void      onyx_json_bool         (OnyxJson *json, gboolean value);
void      onyx_json_null         (OnyxJson *json);
void      onyx_json_double       (OnyxJson *json, double value);      /* NaN, ±inf → null */
/* onyx_json_key() followed by the value. */
void      onyx_json_member_string (OnyxJson *json, const char *key, const char *value);
void      onyx_json_member_int    (OnyxJson *json, const char *key, gint64 value);
void      onyx_json_member_uint   (OnyxJson *json, const char *key, guint64 value);
void      onyx_json_member_bool   (OnyxJson *json, const char *key, gboolean value);
void      onyx_json_member_double (OnyxJson *json, const char *key, double value);
/* An array of the strings (char*) of `values`. */
void      onyx_json_member_strings (OnyxJson *json, const char *key, GPtrArray *values);

G_END_DECLS
