#include "onyx-proto.h"

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

void
onyx_proto_foreach_message (ProtobufCMessage *root, OnyxProtoVisitFunc func, gpointer user_data)
{
  /* Explicit stack: message nesting depth comes from the file and is bounded by the
   * loader, but an iterative walk needs no assumption about the C stack. */
  GPtrArray *stack = g_ptr_array_new ();

  g_ptr_array_add (stack, root);
  while (stack->len > 0)
    {
      ProtobufCMessage *message = g_ptr_array_steal_index (stack, stack->len - 1);
      const ProtobufCMessageDescriptor *desc = message->descriptor;

      func (message, user_data);
      /* Push children in reverse so that they are visited in field order. */
      for (guint i = desc->n_fields; i-- > 0;)
        {
          const ProtobufCFieldDescriptor *field = &desc->fields[i];
          char *base = (char *) message;

          if (field->type != PROTOBUF_C_TYPE_MESSAGE || !field_is_present_message (message, field))
            continue;
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
    }
  g_ptr_array_unref (stack);
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
  TensorVisit visit = { func, user_data };
  onyx_proto_foreach_message (root, visit_if_tensor, &visit);
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

ProtobufCMessage *
onyx_proto_copy (const ProtobufCMessage *message)
{
  g_autoptr (GBytes) packed = onyx_proto_pack (message);
  gsize len;
  const guint8 *data = g_bytes_get_data (packed, &len);

  return protobuf_c_message_unpack (message->descriptor, NULL, len, data);
}

const char *
onyx_proto_type_name (const ProtobufCMessageDescriptor *descriptor)
{
  return descriptor->short_name;
}
