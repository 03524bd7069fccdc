/* onyx-metadata.c: metadata_props read through the descriptor or from unknown
 * fields, and the dynamo exporter's module entries parsed from their Python text. */
#include "onyx-metadata.h"

#include <stdlib.h>
#include <string.h>

#define KEY_NAME_SCOPES "pkg.torch.onnx.name_scopes"
#define KEY_CLASS_HIERARCHY "pkg.torch.onnx.class_hierarchy"
#define KEY_NAMESPACE "namespace"
#define KEY_STACK_TRACE "pkg.torch.onnx.stack_trace"

/* metadata_props' field number in each message type that has one (0: none). */
static guint32
metadata_field_number (const ProtobufCMessageDescriptor *descriptor)
{
  if (descriptor == &onnx__node_proto__descriptor)
    return 9;
  if (descriptor == &onnx__value_info_proto__descriptor)
    return 4;
  if (descriptor == &onnx__graph_proto__descriptor)
    return 16;
  if (descriptor == &onnx__model_proto__descriptor || descriptor == &onnx__function_proto__descriptor)
    return 14;
  return 0;
}

static void
add_entry (GPtrArray *entries, const char *key, const char *value)
{
  OnyxMetadataEntry *entry = g_new (OnyxMetadataEntry, 1);

  entry->key = g_strdup (key != NULL ? key : "");
  entry->value = g_strdup (value != NULL ? value : "");
  g_ptr_array_add (entries, entry);
}

static void
entry_free (OnyxMetadataEntry *entry)
{
  g_free (entry->key);
  g_free (entry->value);
  g_free (entry);
}

GPtrArray *
onyx_metadata_get (const ProtobufCMessage *message)
{
  GPtrArray *entries = g_ptr_array_new_with_free_func ((GDestroyNotify) entry_free);
  guint32 number = metadata_field_number (message->descriptor);
  g_autoptr (GPtrArray) items = NULL;

  if (number == 0)
    return entries;
  items = onyx_proto_get_repeated (message, number, &onnx__string_string_entry_proto__descriptor);
  for (guint i = 0; i < items->len; i++)
    {
      const Onnx__StringStringEntryProto *item = items->pdata[i];
      add_entry (entries, item->key, item->value);
    }
  return entries;
}

const char *
onyx_metadata_lookup (GPtrArray *entries, const char *key)
{
  for (guint i = 0; i < entries->len; i++)
    {
      const OnyxMetadataEntry *entry = entries->pdata[i];
      if (strcmp (entry->key, key) == 0)
        return entry->value;
    }
  return NULL;
}

gboolean
onyx_metadata_key_is_module (const char *key)
{
  return g_strcmp0 (key, KEY_NAME_SCOPES) == 0 || g_strcmp0 (key, KEY_CLASS_HIERARCHY) == 0 ||
         g_strcmp0 (key, KEY_NAMESPACE) == 0 || g_strcmp0 (key, KEY_STACK_TRACE) == 0;
}

/* Python string literals */

static gboolean
parse_hex (const char **p, guint digits, gunichar *out)
{
  *out = 0;
  for (guint i = 0; i < digits; i++)
    {
      int value = g_ascii_xdigit_value ((*p)[i]);
      if (value < 0)
        return FALSE;
      *out = *out * 16 + (gunichar) value;
    }
  *p += digits;
  return TRUE;
}

/* One quoted literal at *p (as repr writes them), decoded into `out`. */
static gboolean
parse_py_string (const char **p, GString *out)
{
  char quote = **p;

  if (quote != '\'' && quote != '"')
    return FALSE;
  (*p)++;
  while (**p != quote)
    {
      char c = *(*p)++;
      gunichar u;
      if (c == '\0' || c == '\n')
        return FALSE;
      if (c != '\\')
        {
          g_string_append_c (out, c);
          continue;
        }
      c = *(*p)++;
      switch (c)
        {
        case '\\': case '\'': case '"':
          g_string_append_c (out, c);
          break;
        case 'n': g_string_append_c (out, '\n'); break;
        case 't': g_string_append_c (out, '\t'); break;
        case 'r': g_string_append_c (out, '\r'); break;
        case 'x': case 'u': case 'U':
          if (!parse_hex (p, c == 'x' ? 2 : c == 'u' ? 4 : 8, &u) || !g_unichar_validate (u) || u == 0)
            return FALSE;
          g_string_append_unichar (out, u);
          break;
        case '\0':
          return FALSE;
        default:
          /* Python keeps an unknown escape as it is. */
          g_string_append_c (out, '\\');
          g_string_append_c (out, c);
        }
    }
  (*p)++;
  return TRUE;
}

GStrv
onyx_python_str_list_parse (const char *text)
{
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  const char *p = text;

  if (text == NULL || !g_utf8_validate (text, -1, NULL))
    return NULL;
  while (g_ascii_isspace (*p))
    p++;
  if (*p++ != '[')
    return NULL;
  for (gboolean first = TRUE;; first = FALSE)
    {
      g_autoptr (GString) item = g_string_new (NULL);
      while (g_ascii_isspace (*p))
        p++;
      if (*p == ']')
        break;
      if (!first)
        {
          if (*p++ != ',')
            return NULL;
          while (g_ascii_isspace (*p))
            p++;
          /* A trailing comma: "['a',]". */
          if (*p == ']')
            break;
        }
      if (!parse_py_string (&p, item))
        return NULL;
      g_strv_builder_add (builder, item->str);
    }
  p++;
  while (g_ascii_isspace (*p))
    p++;
  return *p == '\0' ? g_strv_builder_end (builder) : NULL;
}

/* Stack traces */

static void
frame_free (OnyxSourceFrame *frame)
{
  g_free (frame->file);
  g_free (frame->function);
  g_free (frame->code);
  g_free (frame);
}

/* Library folders below torch/ (a source checkout has no site-packages around it). */
static gboolean
is_torch_file (const char *file)
{
  static const char *const inside[] = { "nn/", "fx/", "export/", "onnx/", "utils/", "autograd/",
                                        "ao/", "distributed/", "_", "functional.py", "overrides.py" };
  for (const char *at = strstr (file, "/torch/"); at != NULL; at = strstr (at + 1, "/torch/"))
    for (guint i = 0; i < G_N_ELEMENTS (inside); i++)
      if (g_str_has_prefix (at + strlen ("/torch/"), inside[i]))
        return TRUE;
  return FALSE;
}

/* The user's own code, as opposed to installed packages, torch or Python itself. */
static gboolean
is_user_file (const char *file)
{
  g_autofree char *path = g_strdelimit (g_strdup (file), "\\", '/');

  /* "<frozen runpy>", "<eval_with_key>.3": no file of theirs. */
  if (path[0] == '<' || path[0] == '\0')
    return FALSE;
  return strstr (path, "/site-packages/") == NULL && strstr (path, "/dist-packages/") == NULL &&
         strstr (path, "/lib/python3") == NULL && !is_torch_file (path);
}

/* A line of only carets and tildes (Python 3.11's markers under the code). */
static gboolean
is_marker_line (const char *line)
{
  return line[strspn (line, " ~^")] == '\0';
}

/* `File "FILE", line N, in FUNCTION` (spaces before it stripped). */
static OnyxSourceFrame *
parse_frame_line (const char *line)
{
  const char *end, *tail;
  char *rest;
  gint64 number;

  if (!g_str_has_prefix (line, "File \""))
    return NULL;
  /* The last `", line ` ends the file name: a name may hold quotes. */
  end = g_strrstr (line, "\", line ");
  if (end == NULL || end < line + strlen ("File \""))
    return NULL;
  tail = end + strlen ("\", line ");
  number = g_ascii_strtoll (tail, &rest, 10);
  if (rest == tail || number < 0 || number > G_MAXINT)
    return NULL;
  {
    OnyxSourceFrame *frame = g_new0 (OnyxSourceFrame, 1);
    frame->file = g_strndup (line + strlen ("File \""), end - (line + strlen ("File \"")));
    frame->line = (int) number;
    frame->function = g_strdup (g_str_has_prefix (rest, ", in ") ? rest + strlen (", in ") : "");
    frame->user = is_user_file (frame->file);
    return frame;
  }
}

GPtrArray *
onyx_python_stack_parse (const char *text)
{
  GPtrArray *frames = g_ptr_array_new_with_free_func ((GDestroyNotify) frame_free);
  g_auto (GStrv) lines = NULL;
  OnyxSourceFrame *last = NULL;

  if (text == NULL || !g_utf8_validate (text, -1, NULL))
    return frames;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = g_strstrip (lines[i]);
      OnyxSourceFrame *frame = parse_frame_line (line);
      if (frame != NULL)
        {
          g_ptr_array_add (frames, frame);
          last = frame;
        }
      /* The code line follows its frame's line. */
      else if (last != NULL && last->code == NULL && line[0] != '\0' && !is_marker_line (line))
        last->code = g_strdup (line);
      else
        last = NULL;
    }
  return frames;
}

/* Module descriptions */

void
onyx_module_info_free (OnyxModuleInfo *info)
{
  if (info == NULL)
    return;
  g_strfreev (info->path);
  g_strfreev (info->classes);
  g_free (info->root_class);
  g_free (info->op);
  g_free (info->op_class);
  if (info->frames != NULL)
    g_ptr_array_unref (info->frames);
  g_free (info);
}

/* ": __main__.Net/network: torch.nn…Sequential/linear: aten.linear.default" into
 * names and classes (module names hold no '/', class names no ": "). */
static gboolean
parse_namespace (const char *text, GStrv *names, GStrv *classes)
{
  g_auto (GStrv) parts = NULL;
  g_autoptr (GStrvBuilder) name_builder = g_strv_builder_new ();
  g_autoptr (GStrvBuilder) class_builder = g_strv_builder_new ();

  if (text == NULL || text[0] == '\0' || !g_utf8_validate (text, -1, NULL))
    return FALSE;
  parts = g_strsplit (text, "/", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *colon = strstr (parts[i], ": ");
      if (colon == NULL)
        return FALSE;
      *colon = '\0';
      g_strv_builder_add (name_builder, parts[i]);
      g_strv_builder_add (class_builder, colon + 2);
    }
  *names = g_strv_builder_end (name_builder);
  *classes = g_strv_builder_end (class_builder);
  return TRUE;
}

/* Splits `scopes` (and the parallel `classes`, or NULL) into root, path and op. */
static void
fill_hierarchy (OnyxModuleInfo *info, GStrv scopes, GStrv classes)
{
  guint n = g_strv_length (scopes);
  guint first = n > 0 && scopes[0][0] == '\0' ? 1 : 0;
  guint last = n > first ? n - 1 : n;   /* the op, when there is one past the root */

  if (classes != NULL && g_strv_length (classes) != n)
    classes = NULL;
  if (first == 1 && classes != NULL)
    info->root_class = g_strdup (classes[0]);
  if (last < n)
    {
      info->op = g_strdup (scopes[last]);
      info->op_class = classes != NULL ? g_strdup (classes[last]) : NULL;
    }
  info->path = g_new0 (char *, last - first + 1);
  info->classes = classes != NULL ? g_new0 (char *, last - first + 1) : NULL;
  for (guint i = first; i < last; i++)
    {
      info->path[i - first] = g_strdup (scopes[i]);
      if (classes != NULL)
        info->classes[i - first] = g_strdup (classes[i]);
    }
}

/* The innermost user frame to the front; the others keep their order. */
static void
put_user_frame_first (GPtrArray *frames)
{
  for (guint i = frames->len; i-- > 0;)
    {
      OnyxSourceFrame *frame = frames->pdata[i];
      if (!frame->user)
        continue;
      g_ptr_array_steal_index (frames, i);
      g_ptr_array_insert (frames, 0, frame);
      return;
    }
}

OnyxModuleInfo *
onyx_module_info_parse (const char *name_scopes, const char *class_hierarchy, const char *namespace_,
                        const char *stack_trace)
{
  g_autoptr (OnyxModuleInfo) info = g_new0 (OnyxModuleInfo, 1);
  g_auto (GStrv) scopes = onyx_python_str_list_parse (name_scopes);
  g_auto (GStrv) classes = NULL;

  if (scopes != NULL)
    classes = onyx_python_str_list_parse (class_hierarchy);
  else if (!parse_namespace (namespace_, &scopes, &classes))
    scopes = NULL;
  info->frames = onyx_python_stack_parse (stack_trace);
  if (scopes == NULL && info->frames->len == 0)
    return NULL;
  if (scopes != NULL)
    fill_hierarchy (info, scopes, classes);
  else
    info->path = g_new0 (char *, 1);
  put_user_frame_first (info->frames);
  return g_steal_pointer (&info);
}

OnyxModuleInfo *
onyx_module_info_new_for_node (const Onnx__NodeProto *node, gboolean with_source)
{
  g_autoptr (GPtrArray) entries = onyx_metadata_get (&node->base);

  if (entries->len == 0)
    return NULL;
  return onyx_module_info_parse (onyx_metadata_lookup (entries, KEY_NAME_SCOPES),
                                 onyx_metadata_lookup (entries, KEY_CLASS_HIERARCHY),
                                 onyx_metadata_lookup (entries, KEY_NAMESPACE),
                                 with_source ? onyx_metadata_lookup (entries, KEY_STACK_TRACE) : NULL);
}

const char *
onyx_class_short_name (const char *full)
{
  const char *dot;

  if (full == NULL)
    return NULL;
  dot = strrchr (full, '.');
  return dot != NULL && dot[1] != '\0' ? dot + 1 : full;
}

char *
onyx_module_info_label (const OnyxModuleInfo *info, guint depth)
{
  const char *name;

  g_return_val_if_fail (depth < g_strv_length (info->path), NULL);
  name = info->path[depth];
  if (info->classes == NULL || info->classes[depth][0] == '\0')
    return g_strdup (name);
  return g_strdup_printf ("%s · %s", name, onyx_class_short_name (info->classes[depth]));
}

char *
onyx_module_info_class_chain (const OnyxModuleInfo *info)
{
  GString *out = g_string_new (NULL);

  if (info->root_class != NULL)
    g_string_append (out, onyx_class_short_name (info->root_class));
  for (guint i = 0; info->classes != NULL && info->classes[i] != NULL; i++)
    g_string_append_printf (out, "%s%s", out->len > 0 ? " › " : "", onyx_class_short_name (info->classes[i]));
  /* The op's class is an aten overload ("aten.linear.default"): its short name says nothing. */
  if (info->op_class != NULL)
    g_string_append_printf (out, "%s%s", out->len > 0 ? " › " : "", info->op_class);
  return g_string_free (out, FALSE);
}

char *
onyx_source_frame_location (const OnyxSourceFrame *frame)
{
  g_autofree char *base = g_path_get_basename (frame->file);

  if (frame->function[0] == '\0')
    return g_strdup_printf ("%s:%d", base, frame->line);
  return g_strdup_printf ("%s:%d in %s", base, frame->line, frame->function);
}
