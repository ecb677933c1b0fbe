-- Hand-written: partition leases and node heartbeats scoped by cluster (the NATS prefix,
-- src/cluster/leases.ts), so clusters of different prefixes on one database lease apart.
-- The rows of before (cluster '') are left alone; nodes insert their own cluster's rows.
ALTER TABLE "cluster_nodes" ADD COLUMN "cluster" text DEFAULT '' NOT NULL;
--> statement-breakpoint
ALTER TABLE "cluster_partitions" ADD COLUMN "cluster" text DEFAULT '' NOT NULL;
--> statement-breakpoint
ALTER TABLE "cluster_nodes" DROP CONSTRAINT "cluster_nodes_pkey";
--> statement-breakpoint
ALTER TABLE "cluster_nodes" ADD CONSTRAINT "cluster_nodes_cluster_node_id_pk" PRIMARY KEY ("cluster", "node_id");
--> statement-breakpoint
ALTER TABLE "cluster_partitions" DROP CONSTRAINT "cluster_partitions_pkey";
--> statement-breakpoint
ALTER TABLE "cluster_partitions" ADD CONSTRAINT "cluster_partitions_cluster_partition_pk" PRIMARY KEY ("cluster", "partition");
