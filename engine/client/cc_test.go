package client_test

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"netscript/engine/client"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// TestTCPCC: a TCP_CC transaction is a connect and a close with no data
// either way, on a thread per flow and on epoll threads alike; the server
// accepted every connection the client completed (and the one in flight
// at the end, if any), and it closed first, as netserver does, so the
// TIME_WAIT of every connection is on the server's data port.
func TestTCPCC(t *testing.T) {
	th := &workload.Threads{}
	ap := startServer(t, th)
	for _, flows := range []int{1, 3, 2 * spec.ThreadedFlows} {
		s := specFor(spec.TCPCC, ap)
		s.Flows, s.Transactions, s.Duration = flows, 100, 0
		res, err := client.Run(context.Background(), s, client.Options{Threads: th})
		if err != nil {
			t.Fatalf("%d flows: %v", flows, err)
		}
		want := uint64(100 * flows)
		if res.Test != "TCP_CC" || res.Transactions != want || res.Latency == nil || res.Latency.Count != want {
			t.Fatalf("%d flows: %s, %d transactions, latency %+v", flows, res.Test, res.Transactions, res.Latency)
		}
		if res.Config.Multiplexed != (flows > spec.ThreadedFlows) {
			t.Errorf("%d flows: multiplexed %v", flows, res.Config.Multiplexed)
		}
		if res.BytesSent != 0 || res.BytesReceived != 0 || res.Remote.BytesSent != 0 || res.Remote.BytesReceived != 0 {
			t.Errorf("%d flows: data moved: client %d/%d, server %d/%d", flows, res.BytesSent, res.BytesReceived,
				res.Remote.BytesSent, res.Remote.BytesReceived)
		}
		if res.Remote.Accepts != want || res.Remote.Transactions != want || len(res.Errors) != 0 {
			t.Errorf("%d flows: server accepted %d and served %d of %d, errors %v", flows, res.Remote.Accepts, res.Remote.Transactions, want, res.Errors)
		}
		for _, f := range res.Flows {
			if f.Connects != 100 || f.Transactions != 100 {
				t.Errorf("%d flows: flow %d made %d connections for %d transactions", flows, f.Index, f.Connects, f.Transactions)
			}
		}
		port := res.Config.DataPort
		server, client := timeWaits(t, port)
		if server < int(want) || client != 0 {
			t.Errorf("%d flows: %d TIME_WAITs on the server's port %d, %d on the client's side; the server must close first",
				flows, server, port, client)
		}
	}
}

// timeWaits counts the IPv4 TIME_WAIT sockets whose local address is
// 127.0.0.1:port (the server closed first) and those whose remote address
// is (the client did).
func timeWaits(t *testing.T, port int) (local, remote int) {
	t.Helper()
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	server := "0100007F:" + strings.ToUpper(strconv.FormatUint(uint64(port)|1<<16, 16)[1:]) // as the kernel prints it
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 || fields[3] != "06" { // TCP_TIME_WAIT
			continue
		}
		if fields[1] == server {
			local++
		}
		if fields[2] == server {
			remote++
		}
	}
	return local, remote
}
