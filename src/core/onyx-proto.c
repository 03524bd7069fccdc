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

ProtobufCMessage *
onyx_proto_copy (const ProtobufCMessage *message)
{
  gsize len = protobuf_c_message_get_packed_size (message);
  guint8 *buffer = g_malloc (MAX (len, 1));
  ProtobufCMessage *copy;

  protobuf_c_message_pack (message, buffer);
  copy = protobuf_c_message_unpack (message->descriptor, NULL, len, buffer);
  g_free (buffer);
  return copy;
}

const char *
onyx_proto_type_name (const ProtobufCMessageDescriptor *descriptor)
{
  return descriptor->short_name;
}
