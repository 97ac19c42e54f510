extension SalusMethods {
    /// `salus.v1.Backup`: backups of the data folder (admin socket).
    package enum Backup {
        package static let name = "salus.v1.Backup"
        package static let create = MethodDescriptor(service: name, method: "Create")
    }
}
