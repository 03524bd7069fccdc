/* onyx-run-profile-json.c: the events of ONNX Runtime's profile trace, scanned
 * (onyx-run-profile-private.h).
 *
 * The trace is a JSON array of Chrome trace events: "cat" "Session" (model_loading_*,
 * session_initialization, model_run, SequentialExecutor::Execute) and "cat" "Node"
 * (NAME_kernel_time, and in some versions NAME_fence_before/after), with "ts" and
 * "dur" in µs, "tid", and "args" (op_name, provider, input_type_shape,
 * output_type_shape as [{"float": [1, 3, 8, 8]}, …], and a dozen more that are
 * skipped). A trace of a hundred thousand events is some 65 MB, and most of it is
 * what is skipped: the scanner finds a string's end with memchr, compares keys where
 * they lie, decodes the few strings it keeps, reads whole numbers itself, and
 * formats a kernel's shapes from its first event only. Whatever the bytes, it stops
 * at the first thing that is not JSON (or nests deeper than a trace does) and says
 * what and where. */
#include "onyx-run-profile-private.h"

#include <gio/gio.h>
#include <glib/gi18n-lib.h>

#include <string.h>

/* Deeper than anything the runtime writes (its shapes are 4 deep). */
#define MAX_DEPTH 64
#define KERNEL_SUFFIX "_kernel_time"

typedef struct {
  const char *start, *at, *end;
  const char *problem;       /* the first thing wrong, NULL while all is well */
  gsize problem_at;
} Reader;

/* A string as it lies in the trace, between its quotes, escapes undecoded. */
typedef struct {
  const char *at;
  gsize length;
} Text;

static void
fail (Reader *reader, const char *problem)
{
  if (reader->problem == NULL)
    {
      reader->problem = problem;
      reader->problem_at = (gsize) (reader->at - reader->start);
    }
  reader->at = reader->end;
}

static inline void
skip_space (Reader *reader)
{
  while (reader->at < reader->end && (*reader->at == ' ' || *reader->at == '\n' || *reader->at == '\r' ||
                                       *reader->at == '\t'))
    reader->at++;
}

static inline gboolean
peek (Reader *reader, char c)
{
  skip_space (reader);
  return reader->at < reader->end && *reader->at == c;
}

static inline gboolean
take (Reader *reader, char c)
{
  if (!peek (reader, c))
    return FALSE;
  reader->at++;
  return TRUE;
}

static inline gboolean
expect (Reader *reader, char c, const char *problem)
{
  if (take (reader, c))
    return TRUE;
  fail (reader, problem);
  return FALSE;
}

/* A string's extent: its closing quote is the first one after an even number of
 * backslashes. */
static gboolean
scan_string (Reader *reader, Text *text)
{
  const char *start;

  if (!expect (reader, '"', N_("a string was expected")))
    return FALSE;
  start = reader->at;
  for (;;)
    {
      const char *quote = reader->at, *back;

      /* Keys and most values are short: a loop finds their end sooner than memchr. */
      while (quote < reader->end && quote - reader->at < 24 && *quote != '"')
        quote++;
      if (quote == reader->end || *quote != '"')
        quote = memchr (quote, '"', (gsize) (reader->end - quote));

      if (quote == NULL)
        {
          fail (reader, N_("a string does not end"));
          return FALSE;
        }
      for (back = quote; back > start && back[-1] == '\\'; back--)
        ;
      reader->at = quote + 1;
      if ((quote - back) % 2 == 0)
        {
          text->at = start;
          text->length = (gsize) (quote - start);
          return TRUE;
        }
    }
}

#define TEXT_IS(text, literal) \
  ((text).length == sizeof (literal) - 1 && memcmp ((text).at, literal, sizeof (literal) - 1) == 0)

static gboolean
read_hex4 (const char **at, const char *end, gunichar *value)
{
  *value = 0;
  if (end - *at < 4)
    return FALSE;
  for (int i = 0; i < 4; i++)
    {
      if (!g_ascii_isxdigit ((*at)[i]))
        return FALSE;
      *value = *value * 16 + (gunichar) g_ascii_xdigit_value ((*at)[i]);
    }
  *at += 4;
  return TRUE;
}

/* The string's characters into `out` (replacing what it held); FALSE, with the
 * reader failed, on an escape JSON does not have or a control character. */
static gboolean
decode (Reader *reader, const Text *text, GString *out)
{
  static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
  const char *at = text->at, *end = text->at + text->length;

  g_string_truncate (out, 0);
  while (at < end)
    {
      const char *run = at, *found;
      gunichar unit, low;
      char utf8[6];

      while (at < end && *at != '\\' && (guchar) *at >= 0x20)
        at++;
      g_string_append_len (out, run, at - run);
      if (at == end)
        break;
      if (*at != '\\')
        {
          fail (reader, N_("a control character is in a string"));
          return FALSE;
        }
      if (++at < end && *at != 'u' && *at != '\0' && (found = strchr (from, *at)) != NULL)
        {
          g_string_append_c (out, to[found - from]);
          at++;
          continue;
        }
      if (at >= end || *at != 'u' || (at++, !read_hex4 (&at, end, &unit)))
        {
          fail (reader, N_("a string holds an escape JSON does not have"));
          return FALSE;
        }
      /* A surrogate pair is one character; a lone half is none. */
      if (unit >= 0xd800 && unit < 0xdc00 && end - at >= 6 && at[0] == '\\' && at[1] == 'u')
        {
          at += 2;
          if (!read_hex4 (&at, end, &low) || low < 0xdc00 || low >= 0xe000)
            {
              fail (reader, N_("a string holds an escape JSON does not have"));
              return FALSE;
            }
          unit = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
        }
      else if (unit >= 0xd800 && unit < 0xe000)
        unit = 0xfffd;
      g_string_append_len (out, utf8, g_unichar_to_utf8 (unit, utf8));
    }
  return TRUE;
}

static gboolean
read_number (Reader *reader, double *value)
{
  const char *at;
  guint64 whole = 0;
  gboolean negative;
  char text[64];
  gsize length = 0;
  char *end;

  skip_space (reader);
  at = reader->at;
  negative = at < reader->end && *at == '-';
  at += negative;
  /* Times and ids are whole numbers: read here, strtod for the rest. */
  while (at < reader->end && g_ascii_isdigit (*at) && at - reader->at < 18)
    whole = whole * 10 + (guint64) (*at++ - '0');
  if (at > reader->at + negative && (at == reader->end || (!g_ascii_isdigit (*at) && *at != '.' && *at != 'e' && *at != 'E')))
    {
      *value = negative ? -(double) whole : (double) whole;
      reader->at = at;
      return TRUE;
    }
  while (reader->at < reader->end && length < sizeof text - 1 &&
         (g_ascii_isdigit (*reader->at) || strchr ("+-.eE", *reader->at) != NULL) && *reader->at != '\0')
    text[length++] = *reader->at++;
  text[length] = '\0';
  *value = g_ascii_strtod (text, &end);
  if (length == 0 || *end != '\0')
    {
      fail (reader, N_("a number was expected"));
      return FALSE;
    }
  return TRUE;
}

static gboolean skip_value (Reader *reader, guint depth);

/* The members of an object or the elements of an array after its opening bracket. */
static gboolean
skip_container (Reader *reader, char close, guint depth)
{
  Text key;

  if (take (reader, close))
    return TRUE;
  do
    {
      if (close == '}' && (!scan_string (reader, &key) || !expect (reader, ':', N_("a ':' was expected"))))
        return FALSE;
      if (!skip_value (reader, depth + 1))
        return FALSE;
    }
  while (take (reader, ','));
  return expect (reader, close, close == '}' ? N_("a '}' was expected") : N_("a ']' was expected"));
}

static gboolean
skip_literal (Reader *reader, const char *word)
{
  gsize length = strlen (word);

  if ((gsize) (reader->end - reader->at) < length || memcmp (reader->at, word, length) != 0)
    {
      fail (reader, N_("a value was expected"));
      return FALSE;
    }
  reader->at += length;
  return TRUE;
}

static gboolean
skip_value (Reader *reader, guint depth)
{
  Text text;
  double number;

  if (depth > MAX_DEPTH)
    {
      fail (reader, N_("values nest too deep"));
      return FALSE;
    }
  if (take (reader, '{'))
    return skip_container (reader, '}', depth);
  if (take (reader, '['))
    return skip_container (reader, ']', depth);
  if (peek (reader, '"'))
    return scan_string (reader, &text);
  if (peek (reader, 't'))
    return skip_literal (reader, "true");
  if (peek (reader, 'f'))
    return skip_literal (reader, "false");
  if (peek (reader, 'n'))
    return skip_literal (reader, "null");
  return read_number (reader, &number);
}

/* A value's extent, skipped: read again when it is wanted. */
static gboolean
scan_value (Reader *reader, Text *text)
{
  skip_space (reader);
  text->at = reader->at;
  if (!skip_value (reader, 2))
    return FALSE;
  text->length = (gsize) (reader->at - text->at);
  return TRUE;
}

/* Shapes as [{"float": [1, 3, 8, 8]}, …] into "float[1×3×8×8], …", from a value
 * scan_value found whole; NULL for anything else. */
static char *
format_shapes (const Text *value)
{
  Reader reader = { value->at, value->at, value->at + value->length, NULL, 0 };
  g_autoptr (GString) out = g_string_new (NULL);
  Text type;
  double dim;

  if (value->length == 0 || !take (&reader, '[') || take (&reader, ']'))
    return NULL;
  do
    {
      guint n = 0;
      if (!take (&reader, '{') || !scan_string (&reader, &type) || !take (&reader, ':') || !take (&reader, '['))
        return NULL;
      g_string_append_printf (out, "%s%.*s[", out->len > 0 ? ", " : "", (int) type.length, type.at);
      if (!take (&reader, ']'))
        {
          do
            {
              if (!read_number (&reader, &dim))
                return NULL;
              g_string_append_printf (out, "%s%.0f", n++ > 0 ? "×" : "", dim);
            }
          while (take (&reader, ','));
          if (!take (&reader, ']'))
            return NULL;
        }
      g_string_append_c (out, ']');
      if (!take (&reader, '}'))
        return NULL;
    }
  while (take (&reader, ','));
  return take (&reader, ']') ? g_string_free (g_steal_pointer (&out), FALSE) : NULL;
}

/* One event's fields that matter, as they lie in the trace. */
typedef struct {
  Text cat, name, op, provider, inputs, outputs;
  double ts, dur, tid;
} Fields;

static gboolean
read_args (Reader *reader, Fields *fields)
{
  Text key;

  if (!peek (reader, '{'))
    return skip_value (reader, 1);
  reader->at++;
  if (take (reader, '}'))
    return TRUE;
  do
    {
      gboolean ok;

      if (!scan_string (reader, &key) || !expect (reader, ':', N_("a ':' was expected")))
        return FALSE;
      if (TEXT_IS (key, "op_name"))
        ok = scan_string (reader, &fields->op);
      else if (TEXT_IS (key, "provider"))
        ok = scan_string (reader, &fields->provider);
      else if (TEXT_IS (key, "input_type_shape"))
        ok = scan_value (reader, &fields->inputs);
      else if (TEXT_IS (key, "output_type_shape"))
        ok = scan_value (reader, &fields->outputs);
      else
        ok = skip_value (reader, 2);
      if (!ok)
        return FALSE;
    }
  while (take (reader, ','));
  return expect (reader, '}', N_("a '}' was expected"));
}

static gboolean
read_event (Reader *reader, Fields *fields)
{
  Text key;

  memset (fields, 0, sizeof *fields);
  if (!expect (reader, '{', N_("an event was expected")))
    return FALSE;
  if (take (reader, '}'))
    return TRUE;
  do
    {
      gboolean ok;

      if (!scan_string (reader, &key) || !expect (reader, ':', N_("a ':' was expected")))
        return FALSE;
      if (TEXT_IS (key, "cat"))
        ok = scan_string (reader, &fields->cat);
      else if (TEXT_IS (key, "name"))
        ok = scan_string (reader, &fields->name);
      else if (TEXT_IS (key, "ts"))
        ok = read_number (reader, &fields->ts);
      else if (TEXT_IS (key, "dur"))
        ok = read_number (reader, &fields->dur);
      else if (TEXT_IS (key, "tid") && !peek (reader, '"'))
        ok = read_number (reader, &fields->tid);
      else if (TEXT_IS (key, "args"))
        ok = read_args (reader, fields);
      else
        ok = skip_value (reader, 1);
      if (!ok)
        return FALSE;
    }
  while (take (reader, ','));
  return expect (reader, '}', N_("a '}' was expected"));
}

/* ---- Events kept ---- */

static void
named_free (gpointer data)
{
  OnyxProfileNamed *named = data;
  g_free (named->name);
  g_free (named->op);
  g_free (named->provider);
  g_free (named->inputs);
  g_free (named->outputs);
  g_free (named);
}

void
onyx_profile_events_init (OnyxProfileEvents *events)
{
  events->names = g_ptr_array_new_with_free_func (named_free);
  events->name_index = g_hash_table_new (g_str_hash, g_str_equal);
  events->events = g_array_new (FALSE, FALSE, sizeof (OnyxProfileEvent));
  events->runs = g_array_new (FALSE, FALSE, sizeof (OnyxProfileSpan));
  events->session_us = 0;
}

void
onyx_profile_events_clear (OnyxProfileEvents *events)
{
  g_clear_pointer (&events->names, g_ptr_array_unref);
  g_clear_pointer (&events->name_index, g_hash_table_unref);
  g_clear_pointer (&events->events, g_array_unref);
  g_clear_pointer (&events->runs, g_array_unref);
}

static char *
decoded_or_null (Reader *reader, const Text *text, GString *scratch)
{
  if (text->length == 0 || !decode (reader, text, scratch))
    return NULL;
  return g_strndup (scratch->str, scratch->len);
}

static void
add_event (Reader *reader, OnyxProfileEvents *events, const Fields *fields, GString *name)
{
  OnyxProfileEvent event = { fields->ts, MAX (fields->dur, 0), fields->tid, 0, -1 };
  gboolean session = TEXT_IS (fields->cat, "Session");
  guint index;

  if ((!session && !TEXT_IS (fields->cat, "Node")) || !decode (reader, &fields->name, name))
    return;
  if (session)
    {
      OnyxProfileSpan span = { fields->ts, MAX (fields->dur, 0) };
      if (strcmp (name->str, "model_run") == 0)
        g_array_append_val (events->runs, span);
      else if (strcmp (name->str, "session_initialization") == 0 || g_str_has_prefix (name->str, "model_loading_"))
        events->session_us += span.dur;
      return;
    }
  if (!g_str_has_suffix (name->str, KERNEL_SUFFIX))
    return;
  g_string_truncate (name, name->len - strlen (KERNEL_SUFFIX));
  index = GPOINTER_TO_UINT (g_hash_table_lookup (events->name_index, name->str));
  if (index == 0)
    {
      OnyxProfileNamed *named = g_new0 (OnyxProfileNamed, 1);
      g_autoptr (GString) scratch = g_string_new (NULL);

      named->name = g_strndup (name->str, name->len);
      named->op = decoded_or_null (reader, &fields->op, scratch);
      named->provider = decoded_or_null (reader, &fields->provider, scratch);
      named->inputs = format_shapes (&fields->inputs);
      named->outputs = format_shapes (&fields->outputs);
      g_ptr_array_add (events->names, named);
      index = events->names->len;
      g_hash_table_insert (events->name_index, named->name, GUINT_TO_POINTER (index));
    }
  event.named = index - 1;
  g_array_append_val (events->events, event);
}

gboolean
onyx_profile_events_scan (GBytes *bytes, OnyxProfileEvents *events, GError **error)
{
  gsize size;
  Reader reader = { 0 };
  Fields fields;
  g_autoptr (GString) name = g_string_new (NULL);

  reader.start = reader.at = g_bytes_get_data (bytes, &size);
  if (reader.start == NULL) /* empty bytes: no pointer to add 0 to */
    reader.start = reader.at = "";
  reader.end = reader.start + size;
  if (expect (&reader, '[', N_("the trace is no JSON array")) && !take (&reader, ']'))
    {
      do
        if (read_event (&reader, &fields))
          add_event (&reader, events, &fields, name);
      while (reader.problem == NULL && take (&reader, ','));
      expect (&reader, ']', N_("a ']' was expected"));
    }
  skip_space (&reader);
  if (reader.problem == NULL && reader.at < reader.end)
    fail (&reader, N_("something follows the events"));
  if (reader.problem != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("ONNX Runtime's trace cannot be read: %s (at byte %lu)"),
                   _(reader.problem), (unsigned long) reader.problem_at);
      return FALSE;
    }
  return TRUE;
}
