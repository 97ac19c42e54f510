extension SalusMethods {
    /// `salus.v1.WorkoutBuilder`: workouts recorded while they happen (HKWorkoutBuilder).
    package enum WorkoutBuilder {
        package static let name = "salus.v1.WorkoutBuilder"
        package static let begin = MethodDescriptor(service: name, method: "Begin")
        package static let get = MethodDescriptor(service: name, method: "Get")
        package static let list = MethodDescriptor(service: name, method: "List")
        package static let addSamples = MethodDescriptor(service: name, method: "AddSamples")
        package static let addEvents = MethodDescriptor(service: name, method: "AddEvents")
        package static let addMetadata = MethodDescriptor(service: name, method: "AddMetadata")
        package static let beginActivity = MethodDescriptor(service: name, method: "BeginActivity")
        package static let endActivity = MethodDescriptor(service: name, method: "EndActivity")
        package static let endCollection = MethodDescriptor(service: name, method: "EndCollection")
        package static let finish = MethodDescriptor(service: name, method: "Finish")
        package static let discard = MethodDescriptor(service: name, method: "Discard")
        package static let elapsedTime = MethodDescriptor(service: name, method: "ElapsedTime")
    }

    /// `salus.v1.WorkoutSession`: the person's running workout session (HKWorkoutSession).
    package enum WorkoutSession {
        package static let name = "salus.v1.WorkoutSession"
        package static let create = MethodDescriptor(service: name, method: "Create")
        package static let change = MethodDescriptor(service: name, method: "Change")
        package static let get = MethodDescriptor(service: name, method: "Get")
        package static let observe = MethodDescriptor(service: name, method: "Observe")
    }
}
