#!/bin/sh
# The compose broker, authenticating and authorizing as the embedded secured broker does
# (docs/security.md, ADR 0022): clients on SASL_PLAINTEXT with SCRAM-SHA-512, the controller
# listener with PLAIN and only the super user, ACLs by KRaft's StandardAuthorizer. The super
# user's SCRAM credential is written when the storage is formatted (first start of the volume);
# ./sagas kafka-access then creates each role's user and grants.
# Three of these make the compose cluster (docker-compose.yml: kafka-1, kafka-2, kafka-3), each
# with its NODE_ID; every topic is kept on all three and written to two before it is acknowledged.
set -eu
node=${NODE_ID:?NODE_ID: this broker's id, 1 to 3}
admin=sagas-admin
password=$(cat /run/secrets/kafka_admin_password)
config=/tmp/server.properties
cat > "$config" <<PROPERTIES
process.roles=broker,controller
node.id=$node
controller.quorum.voters=1@kafka-1:9093,2@kafka-2:9093,3@kafka-3:9093
listeners=CLIENT://:9092,CONTROLLER://:9093
advertised.listeners=CLIENT://kafka-$node:9092
controller.listener.names=CONTROLLER
inter.broker.listener.name=CLIENT
listener.security.protocol.map=CLIENT:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT
sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512
sasl.mechanism.controller.protocol=PLAIN
listener.name.client.sasl.enabled.mechanisms=SCRAM-SHA-512
listener.name.client.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="$admin" password="$password";
listener.name.controller.sasl.enabled.mechanisms=PLAIN
listener.name.controller.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="$admin" password="$password" user_$admin="$password";
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=User:$admin
allow.everyone.if.no.acl.found=false
log.dirs=/var/lib/kafka/data
num.partitions=4
default.replication.factor=3
min.insync.replicas=2
offsets.topic.replication.factor=3
transaction.state.log.replication.factor=3
transaction.state.log.min.isr=2
share.coordinator.state.topic.replication.factor=3
share.coordinator.state.topic.min.isr=2
unclean.leader.election.enable=false
PROPERTIES
/opt/kafka/bin/kafka-storage.sh format --ignore-formatted -t "${CLUSTER_ID:-c2FnYXMtY29tcG9zZS0x}" -c "$config" \
  --add-scram "SCRAM-SHA-512=[name=$admin,password=$password]"
exec /opt/kafka/bin/kafka-server-start.sh "$config"
