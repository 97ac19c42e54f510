// Command go-ttrpc-client shows that containerd's stock ttrpc client talks to salusd: it calls
// salus.v1.Diagnostics/Echo and salus.v1.Session/Hello with ttrpc.NewClient(conn).Call and
// checks that an unknown method fails with UNIMPLEMENTED through ttrpc's status error.
//
// It builds offline in GOPATH mode against Debian's packages (golang-github-containerd-ttrpc-dev
// 1.1.1 and what it depends on):
//
//	export GOPATH=/usr/share/gocode GO111MODULE=off GOCACHE=$(mktemp -d)
//	go build -o /tmp/go-ttrpc-client .
//	/tmp/go-ttrpc-client -socket /path/to/app.sock -text "hello"
//
// The few messages it needs are written by hand below: plain structs whose protobuf struct tags
// gogo/protobuf (the codec ttrpc 1.1.1 uses) reads to encode and decode them, as ttrpc does for
// its own Request and Response. Field numbers are those of Protos/salus/v1/*.proto.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/containerd/ttrpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// EchoRequest is salus.v1.EchoRequest.
type EchoRequest struct {
	Payload []byte `protobuf:"bytes,1,opt,name=payload,proto3"`
	Text    string `protobuf:"bytes,2,opt,name=text,proto3"`
}

// EchoResponse is salus.v1.EchoResponse.
type EchoResponse struct {
	Payload  []byte `protobuf:"bytes,1,opt,name=payload,proto3"`
	Text     string `protobuf:"bytes,2,opt,name=text,proto3"`
	Sequence uint64 `protobuf:"varint,3,opt,name=sequence,proto3"`
}

// HelloRequest is salus.v1.HelloRequest.
type HelloRequest struct {
	ProtocolVersion uint32   `protobuf:"varint,1,opt,name=protocol_version,proto3"`
	ClientName      string   `protobuf:"bytes,2,opt,name=client_name,proto3"`
	ClientVersion   string   `protobuf:"bytes,3,opt,name=client_version,proto3"`
	Features        []string `protobuf:"bytes,4,rep,name=features,proto3"`
	AppID           string   `protobuf:"bytes,5,opt,name=app_id,proto3"`
}

// HelloResponse is salus.v1.HelloResponse.
type HelloResponse struct {
	ProtocolVersion uint32         `protobuf:"varint,1,opt,name=protocol_version,proto3"`
	ServerName      string         `protobuf:"bytes,2,opt,name=server_name,proto3"`
	ServerVersion   string         `protobuf:"bytes,3,opt,name=server_version,proto3"`
	Features        []string       `protobuf:"bytes,4,rep,name=features,proto3"`
	Limits          *Limits        `protobuf:"bytes,5,opt,name=limits,proto3"`
	Services        []*ServiceInfo `protobuf:"bytes,6,rep,name=services,proto3"`
}

// Limits is salus.v1.Limits.
type Limits struct {
	MaxFrameSize    uint32 `protobuf:"varint,1,opt,name=max_frame_size,proto3"`
	MaxMetadataSize uint32 `protobuf:"varint,2,opt,name=max_metadata_size,proto3"`
	InitialWindow   uint32 `protobuf:"varint,3,opt,name=initial_window,proto3"`
	ReceiveWindow   uint32 `protobuf:"varint,4,opt,name=receive_window,proto3"`
}

// ServiceInfo is salus.v1.ServiceInfo.
type ServiceInfo struct {
	Name    string        `protobuf:"bytes,1,opt,name=name,proto3"`
	Methods []*MethodInfo `protobuf:"bytes,2,rep,name=methods,proto3"`
}

// MethodInfo is salus.v1.MethodInfo.
type MethodInfo struct {
	Name            string `protobuf:"bytes,1,opt,name=name,proto3"`
	ClientStreaming bool   `protobuf:"varint,2,opt,name=client_streaming,proto3"`
	ServerStreaming bool   `protobuf:"varint,3,opt,name=server_streaming,proto3"`
}

// The three methods of proto.Message, for each type.

func (m *EchoRequest) Reset()         { *m = EchoRequest{} }
func (m *EchoRequest) String() string { return fmt.Sprintf("%+v", *m) }
func (*EchoRequest) ProtoMessage()    {}

func (m *EchoResponse) Reset()         { *m = EchoResponse{} }
func (m *EchoResponse) String() string { return fmt.Sprintf("%+v", *m) }
func (*EchoResponse) ProtoMessage()    {}

func (m *HelloRequest) Reset()         { *m = HelloRequest{} }
func (m *HelloRequest) String() string { return fmt.Sprintf("%+v", *m) }
func (*HelloRequest) ProtoMessage()    {}

func (m *HelloResponse) Reset()         { *m = HelloResponse{} }
func (m *HelloResponse) String() string { return fmt.Sprintf("%+v", *m) }
func (*HelloResponse) ProtoMessage()    {}

func (m *Limits) Reset()         { *m = Limits{} }
func (m *Limits) String() string { return fmt.Sprintf("%+v", *m) }
func (*Limits) ProtoMessage()    {}

func (m *ServiceInfo) Reset()         { *m = ServiceInfo{} }
func (m *ServiceInfo) String() string { return fmt.Sprintf("%+v", *m) }
func (*ServiceInfo) ProtoMessage()    {}

func (m *MethodInfo) Reset()         { *m = MethodInfo{} }
func (m *MethodInfo) String() string { return fmt.Sprintf("%+v", *m) }
func (*MethodInfo) ProtoMessage()    {}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "go-ttrpc-client: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	socket := flag.String("socket", os.Getenv("SALUS_SOCKET"), "salusd's app socket (default $SALUS_SOCKET)")
	text := flag.String("text", "hello from ttrpc", "text for Diagnostics/Echo")
	timeout := flag.Duration("timeout", 10*time.Second, "deadline of each call (sent as timeout_nano)")
	flag.Parse()
	if *socket == "" {
		fmt.Fprintln(os.Stderr, "usage: go-ttrpc-client -socket PATH [-text TEXT] [-timeout DURATION]")
		os.Exit(2)
	}

	conn, err := net.Dial("unix", *socket)
	if err != nil {
		fail("cannot connect: %v", err)
	}
	client := ttrpc.NewClient(conn)
	defer client.Close()

	call := func(service, method string, req, resp interface{}) error {
		ctx, cancel := context.WithTimeout(context.Background(), *timeout)
		defer cancel()
		return client.Call(ctx, service, method, req, resp)
	}

	// 1. A unary call, exactly as any ttrpc service is called.
	var echo EchoResponse
	if err := call("salus.v1.Diagnostics", "Echo", &EchoRequest{Text: *text}, &echo); err != nil {
		fail("Echo failed: %v", err)
	}
	fmt.Printf("echo: %q\n", echo.Text)
	if echo.Text != *text {
		fail("Echo returned %q, want %q", echo.Text, *text)
	}

	// 2. The error path: the status in salusd's Response arrives as a gRPC status error.
	err = call("salus.v1.Diagnostics", "NoSuchMethod", &EchoRequest{}, &EchoResponse{})
	st, _ := status.FromError(err)
	fmt.Printf("unknown method: code=%d (%s) message=%q\n", st.Code(), st.Code(), st.Message())
	if st.Code() != codes.Unimplemented {
		fail("an unknown method gave %v, want Unimplemented", err)
	}

	// 3. Hello, last: it turns on the extension frames for this connection, which this stock
	// client does not understand, so nothing else is called on it afterwards.
	var hello HelloResponse
	request := &HelloRequest{ProtocolVersion: 1, ClientName: "go-ttrpc-client", ClientVersion: "1.0"}
	if err := call("salus.v1.Session", "Hello", request, &hello); err != nil {
		fail("Hello failed: %v", err)
	}
	fmt.Printf("hello: %s %s, protocol %d, features [%s]\n",
		hello.ServerName, hello.ServerVersion, hello.ProtocolVersion, strings.Join(hello.Features, " "))
	if hello.Limits != nil {
		fmt.Printf("limits: max_frame_size=%d max_metadata_size=%d initial_window=%d receive_window=%d\n",
			hello.Limits.MaxFrameSize, hello.Limits.MaxMetadataSize, hello.Limits.InitialWindow, hello.Limits.ReceiveWindow)
	}
	for _, service := range hello.Services {
		names := make([]string, 0, len(service.Methods))
		for _, method := range service.Methods {
			names = append(names, method.Name)
		}
		fmt.Printf("service %s: %s\n", service.Name, strings.Join(names, " "))
	}
	fmt.Println("ok")
}
