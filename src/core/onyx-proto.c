#include "onyx-proto.h"

#include <stdlib.h>
#include <string.h>

static gboolean
field_is_present_message (const ProtobufCMessage *message, const ProtobufCFieldDescriptor *field)
{
  /* Members of a oneof share storage: only the active one holds a message pointer. */
  if (field->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
    {
      const uint32_t *which = (const uint32_t *) ((const char *) message + field->quantifier_offset);
      return *which == field->id;
    }
  return TRUE;
}

/* Whether a message of this type may contain a TensorProto, for the type itself or
 * any it nests: the walk for tensors skips the rest (types, shapes, value_info,
 * most of a model's messages). Worked out once for the types of onnx.proto, as the
 * list of each type's fields that may lead to a tensor: the walk follows those only,
 * without asking of every field of every message. */
typedef struct {
  guint n_fields;
  const ProtobufCFieldDescriptor **fields;
} Followed;

static GHashTable *followed_fields;  /* descriptor → Followed* */

static void
collect_descriptors (const ProtobufCMessageDescriptor *desc, GHashTable *seen)
{
  if (g_hash_table_contains (seen, desc))
    return;
  g_hash_table_insert (seen, (gpointer) desc, GINT_TO_POINTER (desc == &onnx__tensor_proto__descriptor));
  for (unsigned i = 0; i < desc->n_fields; i++)
    if (desc->fields[i].type == PROTOBUF_C_TYPE_MESSAGE)
      collect_descriptors (desc->fields[i].descriptor, seen);
}

static gpointer
find_tensor_holders (gpointer unused)
{
  g_autoptr (GHashTable) holders = g_hash_table_new (NULL, NULL);
  GHashTable *followed = g_hash_table_new (NULL, NULL);
  GHashTableIter iter;
  gpointer key, value;
  gboolean changed = TRUE;

  (void) unused;
  collect_descriptors (&onnx__model_proto__descriptor, holders);
  /* Nesting has cycles (graph, node, attribute, graph): iterate to the fixed point. */
  while (changed)
    {
      changed = FALSE;
      g_hash_table_iter_init (&iter, holders);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          const ProtobufCMessageDescriptor *desc = key;
          if (GPOINTER_TO_INT (value))
            continue;
          for (unsigned i = 0; i < desc->n_fields; i++)
            if (desc->fields[i].type == PROTOBUF_C_TYPE_MESSAGE &&
                GPOINTER_TO_INT (g_hash_table_lookup (holders, desc->fields[i].descriptor)))
              {
                g_hash_table_iter_replace (&iter, GINT_TO_POINTER (TRUE));
                changed = TRUE;
                break;
              }
        }
    }
  /* Kept to the program's end, as the descriptors are. */
  g_hash_table_iter_init (&iter, holders);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      const ProtobufCMessageDescriptor *desc = key;
      Followed *list = g_new0 (Followed, 1);
      list->fields = g_new (const ProtobufCFieldDescriptor *, MAX (desc->n_fields, 1));
      for (unsigned i = 0; i < desc->n_fields; i++)
        if (desc->fields[i].type == PROTOBUF_C_TYPE_MESSAGE &&
            GPOINTER_TO_INT (g_hash_table_lookup (holders, desc->fields[i].descriptor)))
          list->fields[list->n_fields++] = &desc->fields[i];
      g_hash_table_insert (followed, key, list);
    }
  followed_fields = followed;
  return NULL;
}

/* Pushes the message's children in `field` (reversed: popped in field order). */
static void
push_children (GPtrArray *stack, ProtobufCMessage *message, const ProtobufCFieldDescriptor *field)
{
  char *base = (char *) message;

  if (field->type != PROTOBUF_C_TYPE_MESSAGE || !field_is_present_message (message, field))
    return;
  if (field->label == PROTOBUF_C_LABEL_REPEATED)
    {
      size_t n = *(size_t *) (base + field->quantifier_offset);
      ProtobufCMessage **items = *(ProtobufCMessage ***) (base + field->offset);
      for (size_t k = n; k-- > 0;)
        if (items[k] != NULL)
          g_ptr_array_add (stack, items[k]);
    }
  else
    {
      ProtobufCMessage *child = *(ProtobufCMessage **) (base + field->offset);
      if (child != NULL)
        g_ptr_array_add (stack, child);
    }
}

/* Visits messages parents first; `only_tensor_holders` follows only the fields that
 * may lead to a tensor (all fields of a type that is not onnx.proto's). */
static void
walk_messages (ProtobufCMessage *root, gboolean only_tensor_holders, OnyxProtoVisitFunc func,
               gpointer user_data)
{
  /* Explicit stack: message nesting depth comes from the file and is bounded by the
   * loader, but an iterative walk needs no assumption about the C stack. */
  GPtrArray *stack = g_ptr_array_new ();

  g_ptr_array_add (stack, root);
  while (stack->len > 0)
    {
      ProtobufCMessage *message = g_ptr_array_steal_index (stack, stack->len - 1);
      const ProtobufCMessageDescriptor *desc = message->descriptor;
      const Followed *followed = only_tensor_holders ? g_hash_table_lookup (followed_fields, desc) : NULL;

      func (message, user_data);
      /* Push children in reverse so that they are visited in field order. */
      if (followed != NULL)
        for (guint i = followed->n_fields; i-- > 0;)
          push_children (stack, message, followed->fields[i]);
      else
        for (guint i = desc->n_fields; i-- > 0;)
          push_children (stack, message, &desc->fields[i]);
    }
  g_ptr_array_unref (stack);
}

void
onyx_proto_foreach_message (ProtobufCMessage *root, OnyxProtoVisitFunc func, gpointer user_data)
{
  walk_messages (root, FALSE, func, user_data);
}

typedef struct {
  OnyxProtoTensorFunc func;
  gpointer user_data;
} TensorVisit;

static void
visit_if_tensor (ProtobufCMessage *message, gpointer user_data)
{
  TensorVisit *visit = user_data;
  if (message->descriptor == &onnx__tensor_proto__descriptor)
    visit->func ((Onnx__TensorProto *) message, visit->user_data);
}

void
onyx_proto_foreach_tensor (ProtobufCMessage *root, OnyxProtoTensorFunc func, gpointer user_data)
{
  static GOnce once = G_ONCE_INIT;
  TensorVisit visit = { func, user_data };

  g_once (&once, find_tensor_holders, NULL);
  walk_messages (root, TRUE, visit_if_tensor, &visit);
}

GBytes *
onyx_proto_pack (const ProtobufCMessage *message)
{
  gsize len = protobuf_c_message_get_packed_size (message);
  guint8 *data = g_malloc (MAX (len, 1));

  protobuf_c_message_pack (message, data);
  return g_bytes_new_take (data, len);
}

gboolean
onyx_proto_equal (const ProtobufCMessage *a, const ProtobufCMessage *b)
{
  g_autoptr (GBytes) packed_a = NULL, packed_b = NULL;

  if (a->descriptor != b->descriptor)
    return FALSE;
  packed_a = onyx_proto_pack (a);
  packed_b = onyx_proto_pack (b);
  return g_bytes_equal (packed_a, packed_b);
}

static size_t
field_element_size (ProtobufCType type)
{
  switch (type)
    {
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
      return 8;
    case PROTOBUF_C_TYPE_BOOL:
      return sizeof (protobuf_c_boolean);
    case PROTOBUF_C_TYPE_STRING:
      return sizeof (char *);
    case PROTOBUF_C_TYPE_BYTES:
      return sizeof (ProtobufCBinaryData);
    case PROTOBUF_C_TYPE_MESSAGE:
      return sizeof (ProtobufCMessage *);
    default:
      return 4;  /* the 32-bit integers, float and enum */
    }
}

static void *
memdup_or_null (const void *data, size_t len)
{
  void *copy;
  if (data == NULL || len == 0)
    return NULL;
  copy = malloc (len);
  if (copy == NULL)
    g_error ("out of memory copying %zu bytes", len);
  return memcpy (copy, data, len);
}

/* Points *value at a copy of what it points at now (a string, bytes or a message),
 * leaving a field's default in place as protobuf-c's unpack does. */
static void
copy_pointed (const ProtobufCFieldDescriptor *field, void *value)
{
  switch (field->type)
    {
    case PROTOBUF_C_TYPE_STRING:
      {
        char **string = value;
        if (*string != NULL && *string != field->default_value)
          *string = memdup_or_null (*string, strlen (*string) + 1);
        break;
      }
    case PROTOBUF_C_TYPE_BYTES:
      {
        ProtobufCBinaryData *bytes = value;
        const ProtobufCBinaryData *fallback = field->default_value;
        if (bytes->data != NULL && (fallback == NULL || bytes->data != fallback->data))
          bytes->data = memdup_or_null (bytes->data, bytes->len);
        break;
      }
    case PROTOBUF_C_TYPE_MESSAGE:
      {
        ProtobufCMessage **message = value;
        if (*message != NULL)
          *message = onyx_proto_copy (*message);
        break;
      }
    default:
      break;
    }
}

/* Field by field rather than through pack and unpack: a third of the time, and
 * edits copy thousands of small messages (value_info for every tensor). The copy is
 * malloc-allocated as unpack's is, for protobuf_c_message_free_unpacked. */
ProtobufCMessage *
onyx_proto_copy (const ProtobufCMessage *message)
{
  const ProtobufCMessageDescriptor *desc = message->descriptor;
  char *copy = memdup_or_null (message, desc->sizeof_message);
  ProtobufCMessage *base = (ProtobufCMessage *) copy;

  for (unsigned i = 0; i < desc->n_fields; i++)
    {
      const ProtobufCFieldDescriptor *field = &desc->fields[i];
      void *member = copy + field->offset;

      if (field->label == PROTOBUF_C_LABEL_REPEATED)
        {
          size_t n = *(size_t *) (copy + field->quantifier_offset);
          size_t size = field_element_size (field->type);
          char *items = memdup_or_null (*(void **) member, n * size);
          *(void **) member = items;
          if (field->type == PROTOBUF_C_TYPE_STRING || field->type == PROTOBUF_C_TYPE_BYTES ||
              field->type == PROTOBUF_C_TYPE_MESSAGE)
            for (size_t k = 0; k < n; k++)
              copy_pointed (field, items + k * size);
        }
      else if (!(field->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) ||
               *(uint32_t *) (copy + field->quantifier_offset) == field->id)
        copy_pointed (field, member);
    }
  base->unknown_fields = memdup_or_null (message->unknown_fields,
                                         message->n_unknown_fields * sizeof *message->unknown_fields);
  for (unsigned i = 0; i < message->n_unknown_fields; i++)
    base->unknown_fields[i].data = memdup_or_null (base->unknown_fields[i].data,
                                                   base->unknown_fields[i].len);
  return base;
}

struct _OnyxProtoPool {
  GPtrArray *blocks;
  guint8 *current;
  gsize used;
};

#define POOL_BLOCK_SIZE (256 << 10)
#define POOL_ALIGN 16

static void *
pool_alloc (void *data, size_t size)
{
  OnyxProtoPool *pool = data;
  void *memory;

  if (size > POOL_BLOCK_SIZE / 4)
    {
      /* Big arrays and payloads get a block of their own. */
      if ((memory = g_try_malloc (size)) != NULL)
        g_ptr_array_add (pool->blocks, memory);
      return memory;
    }
  size = (size + POOL_ALIGN - 1) & ~(gsize) (POOL_ALIGN - 1);
  if (pool->current == NULL || pool->used + size > POOL_BLOCK_SIZE)
    {
      if ((pool->current = g_try_malloc (POOL_BLOCK_SIZE)) == NULL)
        return NULL;
      g_ptr_array_add (pool->blocks, pool->current);
      pool->used = 0;
    }
  memory = pool->current + pool->used;
  pool->used += size;
  return memory;
}

static void
pool_free (void *data, void *memory)
{
  /* Everything goes with the pool. */
  (void) data, (void) memory;
}

ProtobufCMessage *
onyx_proto_unpack_pooled (const ProtobufCMessageDescriptor *descriptor, GBytes *bytes,
                          OnyxProtoPool **pool)
{
  ProtobufCAllocator allocator = { pool_alloc, pool_free, NULL };
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);

  *pool = g_new0 (OnyxProtoPool, 1);
  (*pool)->blocks = g_ptr_array_new_with_free_func (g_free);
  allocator.allocator_data = *pool;
  return protobuf_c_message_unpack (descriptor, &allocator, len, data);
}

void
onyx_proto_pool_free (OnyxProtoPool *pool)
{
  if (pool == NULL)
    return;
  g_ptr_array_unref (pool->blocks);
  g_free (pool);
}

const char *
onyx_proto_type_name (const ProtobufCMessageDescriptor *descriptor)
{
  return descriptor->short_name;
}

static void
message_free (gpointer message)
{
  protobuf_c_message_free_unpacked (message, NULL);
}

/* An unknown length-delimited field: protobuf-c keeps its length varint in front. */
static ProtobufCMessage *
unpack_unknown (const ProtobufCMessageUnknownField *field, const ProtobufCMessageDescriptor *type)
{
  guint64 length = 0;
  size_t at = 0;

  if (field->wire_type != PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED)
    return NULL;
  for (guint shift = 0; at < field->len && shift < 64; shift += 7)
    {
      guint8 byte = field->data[at++];
      length |= (guint64) (byte & 0x7f) << shift;
      if ((byte & 0x80) == 0)
        break;
    }
  if (length != field->len - at)
    return NULL;
  return protobuf_c_message_unpack (type, NULL, length, field->data + at);
}

GPtrArray *
onyx_proto_get_repeated (const ProtobufCMessage *message, guint32 number,
                         const ProtobufCMessageDescriptor *type)
{
  GPtrArray *items = g_ptr_array_new_with_free_func (message_free);
  const ProtobufCFieldDescriptor *field = protobuf_c_message_descriptor_get_field (message->descriptor, number);

  if (field != NULL)
    {
      size_t n;
      ProtobufCMessage *const *declared;

      if (field->label != PROTOBUF_C_LABEL_REPEATED || field->descriptor != type)
        return items;
      n = *(const size_t *) ((const char *) message + field->quantifier_offset);
      declared = *(ProtobufCMessage *const *const *) ((const char *) message + field->offset);
      for (size_t i = 0; i < n; i++)
        g_ptr_array_add (items, onyx_proto_copy (declared[i]));
      return items;
    }
  for (unsigned i = 0; i < message->n_unknown_fields; i++)
    if (message->unknown_fields[i].tag == number)
      {
        ProtobufCMessage *item = unpack_unknown (&message->unknown_fields[i], type);
        if (item != NULL)
          g_ptr_array_add (items, item);
      }
  return items;
}
