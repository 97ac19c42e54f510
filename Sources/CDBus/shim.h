// The system's libdbus (Debian libdbus-1-dev), for the desktop notifications of salus-notify.
#include <dbus/dbus.h>

// The type codes are macros with casts, which Swift does not import.
static const int salus_dbus_type_byte = DBUS_TYPE_BYTE;
static const int salus_dbus_type_boolean = DBUS_TYPE_BOOLEAN;
static const int salus_dbus_type_int32 = DBUS_TYPE_INT32;
static const int salus_dbus_type_uint32 = DBUS_TYPE_UINT32;
static const int salus_dbus_type_int64 = DBUS_TYPE_INT64;
static const int salus_dbus_type_double = DBUS_TYPE_DOUBLE;
static const int salus_dbus_type_string = DBUS_TYPE_STRING;
static const int salus_dbus_type_object_path = DBUS_TYPE_OBJECT_PATH;
static const int salus_dbus_type_array = DBUS_TYPE_ARRAY;
static const int salus_dbus_type_variant = DBUS_TYPE_VARIANT;
static const int salus_dbus_type_struct = DBUS_TYPE_STRUCT;
static const int salus_dbus_type_dict_entry = DBUS_TYPE_DICT_ENTRY;
static const int salus_dbus_type_invalid = DBUS_TYPE_INVALID;
