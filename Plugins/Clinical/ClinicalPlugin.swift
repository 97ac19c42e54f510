import CSalusPlugin
import SalusPluginKit

/// The plugin's entry: the ABI's one exported function.
@c(salus_plugin_get_entry)
public func salusPluginGetEntry(_ hostABI: salus_abi_version) -> UnsafePointer<salus_plugin_entry>? {
    PluginEntry.entry(hostABI: hostABI) {
        SalusPlugin(manifest: ClinicalManifest.manifest)
    }
}
