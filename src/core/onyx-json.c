#include "onyx-json.h"

#include <math.h>

struct _OnyxJson {
  GString *out;
  guint depth;
  gboolean need_comma;
  gboolean after_key;
};

OnyxJson *
onyx_json_new (void)
{
  OnyxJson *json = g_new0 (OnyxJson, 1);
  json->out = g_string_new (NULL);
  return json;
}

char *
onyx_json_finish (OnyxJson *json)
{
  char *text;
  g_string_append_c (json->out, '\n');
  text = g_string_free (json->out, FALSE);
  g_free (json);
  return text;
}

static void
newline (OnyxJson *json)
{
  g_string_append_c (json->out, '\n');
  for (guint i = 0; i < json->depth; i++)
    g_string_append (json->out, "  ");
}

/* Separator and indentation before a value or key. */
static void
before_item (OnyxJson *json)
{
  if (json->after_key)
    {
      json->after_key = FALSE;
      return;
    }
  if (json->need_comma)
    g_string_append_c (json->out, ',');
  if (json->depth > 0)
    newline (json);
}

static void
append_escaped (GString *out, const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);

  g_string_append_c (out, '"');
  for (const char *p = valid; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;
      switch (c)
        {
        case '"': g_string_append (out, "\\\""); break;
        case '\\': g_string_append (out, "\\\\"); break;
        case '\n': g_string_append (out, "\\n"); break;
        case '\t': g_string_append (out, "\\t"); break;
        case '\r': g_string_append (out, "\\r"); break;
        default:
          if (c < 0x20)
            g_string_append_printf (out, "\\u%04x", c);
          else
            g_string_append_c (out, (char) c);
        }
    }
  g_string_append_c (out, '"');
}

static void
open_container (OnyxJson *json, char bracket)
{
  before_item (json);
  g_string_append_c (json->out, bracket);
  json->depth++;
  json->need_comma = FALSE;
}

static void
close_container (OnyxJson *json, char bracket)
{
  gboolean empty = !json->need_comma;
  json->depth--;
  if (!empty)
    newline (json);
  g_string_append_c (json->out, bracket);
  json->need_comma = TRUE;
}

void onyx_json_begin_object (OnyxJson *json) { open_container (json, '{'); }
void onyx_json_end_object (OnyxJson *json) { close_container (json, '}'); }
void onyx_json_begin_array (OnyxJson *json) { open_container (json, '['); }
void onyx_json_end_array (OnyxJson *json) { close_container (json, ']'); }

void
onyx_json_key (OnyxJson *json, const char *key)
{
  before_item (json);
  append_escaped (json->out, key);
  g_string_append (json->out, ": ");
  json->after_key = TRUE;
}

static void
scalar (OnyxJson *json, const char *text)
{
  before_item (json);
  g_string_append (json->out, text);
  json->need_comma = TRUE;
}

void
onyx_json_string (OnyxJson *json, const char *value)
{
  if (value == NULL)
    {
      onyx_json_null (json);
      return;
    }
  before_item (json);
  append_escaped (json->out, value);
  json->need_comma = TRUE;
}

void
onyx_json_int (OnyxJson *json, gint64 value)
{
  char buf[32];
  g_snprintf (buf, sizeof buf, "%" G_GINT64_FORMAT, value);
  scalar (json, buf);
}

void
onyx_json_uint (OnyxJson *json, guint64 value)
{
  char buf[32];
  g_snprintf (buf, sizeof buf, "%" G_GUINT64_FORMAT, value);
  scalar (json, buf);
}

/* JSON has no NaN or infinity: those are null. Shortest text that reads back the same. */
void
onyx_json_double (OnyxJson *json, double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  if (!isfinite (value))
    {
      scalar (json, "null");
      return;
    }
  if (g_ascii_strtod (g_ascii_formatd (buf, sizeof buf, "%.9g", value), NULL) != value)
    g_ascii_formatd (buf, sizeof buf, "%.17g", value);
  scalar (json, buf);
}

void
onyx_json_member_double (OnyxJson *json, const char *key, double value)
{
  onyx_json_key (json, key);
  onyx_json_double (json, value);
}

void onyx_json_bool (OnyxJson *json, gboolean value) { scalar (json, value ? "true" : "false"); }
void onyx_json_null (OnyxJson *json) { scalar (json, "null"); }

/* Key and value in one call: most members of the CLI's reports are scalars. */
void
onyx_json_member_string (OnyxJson *json, const char *key, const char *value)
{
  onyx_json_key (json, key);
  onyx_json_string (json, value);
}

void
onyx_json_member_int (OnyxJson *json, const char *key, gint64 value)
{
  onyx_json_key (json, key);
  onyx_json_int (json, value);
}

void
onyx_json_member_uint (OnyxJson *json, const char *key, guint64 value)
{
  onyx_json_key (json, key);
  onyx_json_uint (json, value);
}

void
onyx_json_member_bool (OnyxJson *json, const char *key, gboolean value)
{
  onyx_json_key (json, key);
  onyx_json_bool (json, value);
}

void
onyx_json_member_strings (OnyxJson *json, const char *key, GPtrArray *values)
{
  onyx_json_key (json, key);
  onyx_json_begin_array (json);
  for (guint i = 0; i < values->len; i++)
    onyx_json_string (json, values->pdata[i]);
  onyx_json_end_array (json);
}
