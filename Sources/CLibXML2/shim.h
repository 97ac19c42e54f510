// libxml2 for Swift. Debian builds libxml2 with ICU, so its encoding header would include the
// system's ICU headers, whose enums clash with the copy of ICU inside Foundation; Salus never
// touches the ICU converter fields those headers declare, so the option is turned off here.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlwriter.h>

// xmlFree is a global function pointer; Swift sees it as shared mutable state.
static inline void salus_xml_free(void *pointer) { xmlFree(pointer); }
