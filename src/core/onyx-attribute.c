#include "onyx-attribute.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onyx-error.h"
#include "onyx-types.h"
#include "onyx-text.h"

/* Lists in attribute text stop after this many values. */
#define MAX_SHOWN_VALUES 16

gboolean
onyx_attribute_type_is_text (int type)
{
  switch (type)
    {
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS:
      return TRUE;
    default:
      return FALSE;
    }
}

const char *
onyx_attribute_type_name (int type)
{
  switch (type)
    {
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT: return "FLOAT";
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT: return "INT";
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING: return "STRING";
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR: return "TENSOR";
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH: return "GRAPH";
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSOR: return "SPARSE_TENSOR";
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO: return "TYPE_PROTO";
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS: return "FLOATS";
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS: return "INTS";
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS: return "STRINGS";
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS: return "TENSORS";
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS: return "GRAPHS";
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSORS: return "SPARSE_TENSORS";
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTOS: return "TYPE_PROTOS";
    default: return "UNDEFINED";
    }
}

static void
append_float (GString *out, double value)
{
  static const char *const formats[] = { "%.6g", "%.7g", "%.8g", "%.9g" };
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  /* Shortest text that reads back as the same float. */
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_ascii_formatd (buf, sizeof buf, formats[i], value);
      if ((float) g_ascii_strtod (buf, NULL) == (float) value)
        break;
    }
  g_string_append (out, buf);
  /* Keep floats recognisable as floats when read back. */
  if (isfinite (value) && strpbrk (buf, ".eE") == NULL)
    g_string_append (out, ".0");
}

static void
append_quoted (GString *out, const ProtobufCBinaryData *data)
{
  g_autofree char *text = g_strndup ((const char *) data->data, data->len);
  g_autofree char *escaped = onyx_display_escape (text);
  g_string_append_printf (out, "\"%s\"", escaped);
}

char *
onyx_attribute_to_string (const Onnx__AttributeProto *attribute)
{
  GString *out = g_string_new (NULL);
  size_t n = 0;

  switch (attribute->type)
    {
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
      append_float (out, attribute->f);
      break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
      g_string_append_printf (out, "%" G_GINT64_FORMAT, attribute->i);
      break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
      append_quoted (out, &attribute->s);
      break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS:
      n = attribute->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS ? attribute->n_floats
        : attribute->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS ? attribute->n_ints
        : attribute->n_strings;
      g_string_append_c (out, '[');
      for (size_t i = 0; i < n && i < MAX_SHOWN_VALUES; i++)
        {
          if (i > 0)
            g_string_append (out, ", ");
          if (attribute->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS)
            append_float (out, attribute->floats[i]);
          else if (attribute->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS)
            g_string_append_printf (out, "%" G_GINT64_FORMAT, attribute->ints[i]);
          else
            append_quoted (out, &attribute->strings[i]);
        }
      if (n > MAX_SHOWN_VALUES)
        g_string_append_printf (out, ", … (%zu values)", n);
      g_string_append_c (out, ']');
      break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR:
      if (attribute->t != NULL)
        {
          g_autofree char *dims = onyx_dims_to_string (attribute->t->dims, attribute->t->n_dims);
          g_string_append_printf (out, "tensor %s⟨%s⟩", onyx_elem_type_name (attribute->t->data_type), dims);
        }
      break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH:
      if (attribute->g != NULL)
        g_string_append_printf (out, g_dngettext (GETTEXT_PACKAGE, "graph (%zu node)", "graph (%zu nodes)",
                                                  attribute->g->n_node),
                                attribute->g->n_node);
      break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS:
      g_string_append_printf (out, g_dngettext (GETTEXT_PACKAGE, "%zu graph", "%zu graphs", attribute->n_graphs),
                              attribute->n_graphs);
      break;
    default:
      g_string_append (out, onyx_attribute_type_name (attribute->type));
      break;
    }
  return g_string_free (out, FALSE);
}

const char *
onyx_attribute_data_type_name (const Onnx__AttributeProto *attribute, const OnyxSchemaAttribute *declared)
{
  const ProtobufCEnumValue *value;

  if (declared == NULL || !declared->data_type || attribute->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT ||
      attribute->i < G_MININT32 || attribute->i > G_MAXINT32)
    return NULL;
  value = protobuf_c_enum_descriptor_get_value (&onnx__tensor_proto__data_type__descriptor, (int) attribute->i);
  return value != NULL ? value->name : NULL;
}

gboolean
onyx_data_type_from_name (const char *text, int *value)
{
  const ProtobufCEnumDescriptor *types = &onnx__tensor_proto__data_type__descriptor;

  for (unsigned i = 0; text != NULL && i < types->n_values; i++)
    if (g_ascii_strcasecmp (text, types->values[i].name) == 0 ||
        g_ascii_strcasecmp (text, onyx_elem_type_name (types->values[i].value)) == 0)
      {
        *value = types->values[i].value;
        return TRUE;
      }
  return FALSE;
}

char *
onyx_attribute_describe (const Onnx__AttributeProto *attribute, const OnyxSchema *schema)
{
  const OnyxSchemaAttribute *declared = schema != NULL ? onyx_schema_find_attribute (schema, attribute->name) : NULL;
  const char *name = onyx_attribute_data_type_name (attribute, declared);

  return name != NULL ? g_strdup (name) : onyx_attribute_to_string (attribute);
}

Onnx__AttributeProto *
onyx_node_find_attribute (const Onnx__NodeProto *node, const char *name, gsize *position)
{
  for (size_t a = 0; a < node->n_attribute; a++)
    if (g_strcmp0 (node->attribute[a]->name, name) == 0)
      {
        if (position != NULL)
          *position = a;
        return node->attribute[a];
      }
  return NULL;
}

static gboolean
parse_int (const char *text, int64_t *value)
{
  gint64 parsed;
  if (!g_ascii_string_to_signed (text, 10, G_MININT64, G_MAXINT64, &parsed, NULL))
    return FALSE;
  *value = parsed;
  return TRUE;
}

static gboolean
parse_float (const char *text, float *value)
{
  char *end = NULL;
  double parsed;

  if (text[0] == '\0')
    return FALSE;
  parsed = g_ascii_strtod (text, &end);
  if (end == NULL || *end != '\0')
    return FALSE;
  *value = (float) parsed;
  return TRUE;
}

/* "\"text\"" → text; anything else as it is. */
static char *
unquote (const char *text)
{
  gsize len = strlen (text);
  if (len >= 2 && ((text[0] == '"' && text[len - 1] == '"') || (text[0] == '\'' && text[len - 1] == '\'')))
    return g_strndup (text + 1, len - 2);
  return g_strdup (text);
}

static gboolean
is_quoted (const char *text)
{
  gsize len = strlen (text);
  return len >= 2 && (text[0] == '"' || text[0] == '\'') && text[len - 1] == text[0];
}

/* "[a, b]" or "a, b" → stripped items ("[]" → none). Quoted items keep their quotes;
 * commas inside quotes do not split. */
static GPtrArray *
split_list (const char *text)
{
  g_autofree char *body = g_strstrip (g_strdup (text));
  GPtrArray *items = g_ptr_array_new_with_free_func (g_free);
  gsize len = strlen (body);
  GString *item = g_string_new (NULL);
  char quote = 0;
  char *inner;

  if (len >= 2 && body[0] == '[' && body[len - 1] == ']')
    {
      body[len - 1] = '\0';
      inner = body + 1;
    }
  else
    inner = body;
  for (const char *p = inner;; p++)
    {
      if (*p == '\0' || (*p == ',' && quote == 0))
        {
          char *stripped = g_strstrip (g_strdup (item->str));
          if (stripped[0] != '\0' || *p == ',')
            g_ptr_array_add (items, stripped);
          else
            g_free (stripped);
          g_string_truncate (item, 0);
          if (*p == '\0')
            break;
          continue;
        }
      if ((*p == '"' || *p == '\'') && (quote == 0 || quote == *p))
        quote = quote == 0 ? *p : 0;
      g_string_append_c (item, *p);
    }
  g_string_free (item, TRUE);
  return items;
}

static int
infer_type (const char *text)
{
  int64_t i;
  float f;
  gsize len = strlen (text);

  if (len >= 2 && text[0] == '[' && text[len - 1] == ']')
    {
      g_autoptr (GPtrArray) items = split_list (text);
      gboolean all_ints = TRUE, all_floats = TRUE;
      for (guint k = 0; k < items->len; k++)
        {
          all_ints = all_ints && parse_int (items->pdata[k], &i);
          all_floats = all_floats && parse_float (items->pdata[k], &f);
        }
      if (items->len > 0 && all_ints)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
      if (items->len > 0 && all_floats)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS;
      return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS;
    }
  if (parse_int (text, &i))
    return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
  if (parse_float (text, &f))
    return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
  return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
}

static void
set_bytes (ProtobufCBinaryData *data, const char *text)
{
  data->len = strlen (text);
  data->data = malloc (MAX (data->len, 1));
  memcpy (data->data, text, data->len);
}

static gboolean
parse_fail (GError **error, const char *name, const char *text, int type)
{
  g_autofree char *shown = onyx_display_escape (text);
  g_autofree char *attr = onyx_display_escape (name);
  g_set_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID,
               "'%s' is not a valid %s value for attribute '%s'", shown,
               onyx_attribute_type_name (type), attr);
  return FALSE;
}

Onnx__AttributeProto *
onyx_attribute_parse (const char *name, const char *text, int type, GError **error)
{
  g_autofree char *trimmed = g_strstrip (g_strdup (text));
  Onnx__AttributeProto *attribute;
  g_autoptr (GPtrArray) items = NULL;
  gboolean ok = TRUE;

  if (type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED)
    type = infer_type (trimmed);
  switch (type)
    {
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS:
      break;
    default:
      {
        g_autofree char *attr = onyx_display_escape (name);
        g_set_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID,
                     "attribute '%s' is of type %s, which cannot be edited as text", attr,
                     onyx_attribute_type_name (type));
        return NULL;
      }
    }

  attribute = malloc (sizeof *attribute);
  onnx__attribute_proto__init (attribute);
  attribute->name = strdup (name);
  attribute->has_type = TRUE;
  attribute->type = type;
  switch (type)
    {
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
      ok = attribute->has_f = parse_float (trimmed, &attribute->f);
      break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
      ok = attribute->has_i = parse_int (trimmed, &attribute->i);
      break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
      {
        g_autofree char *value = unquote (trimmed);
        attribute->has_s = TRUE;
        set_bytes (&attribute->s, value);
      }
      break;
    default:
      items = split_list (trimmed);
      if (type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS)
        {
          attribute->ints = malloc (MAX (items->len, 1) * sizeof *attribute->ints);
          for (guint k = 0; k < items->len && ok; k++)
            ok = parse_int (items->pdata[k], &attribute->ints[attribute->n_ints++]);
        }
      else if (type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS)
        {
          attribute->floats = malloc (MAX (items->len, 1) * sizeof *attribute->floats);
          for (guint k = 0; k < items->len && ok; k++)
            ok = parse_float (items->pdata[k], &attribute->floats[attribute->n_floats++]);
        }
      else
        {
          attribute->strings = malloc (MAX (items->len, 1) * sizeof *attribute->strings);
          for (guint k = 0; k < items->len; k++)
            {
              g_autofree char *value = is_quoted (items->pdata[k]) ? unquote (items->pdata[k])
                                                                    : g_strdup (items->pdata[k]);
              set_bytes (&attribute->strings[attribute->n_strings++], value);
            }
        }
      break;
    }
  if (!ok)
    {
      protobuf_c_message_free_unpacked (&attribute->base, NULL);
      parse_fail (error, name, trimmed, type);
      return NULL;
    }
  return attribute;
}
