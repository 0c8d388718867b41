package dev.baton.sample.report;

import java.sql.Timestamp;
import java.time.Instant;

import dev.baton.lock.annotation.DistributedLock;
import dev.baton.lock.annotation.OnLockFailure;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A report job that every instance schedules but only one runs at a time. Instances that find
 * the lock taken skip the run ({@code OnLockFailure.SKIP}); {@code lockAtLeastFor} keeps the lock
 * after a fast run, so an instance whose clock fires a little later does not run it again.
 */
@Component
class DailyReportJob {

	private static final Log logger = LogFactory.getLog(DailyReportJob.class);

	private final JdbcClient jdbc;

	private final String instance;

	DailyReportJob(JdbcClient jdbc, @Value("${app.instance-id:${random.uuid}}") String instance) {
		this.jdbc = jdbc;
		this.instance = instance.length() > 8 ? instance.substring(0, 8) : instance;
	}

	@Scheduled(fixedRateString = "${app.report.interval}", initialDelayString = "${app.report.interval}")
	@DistributedLock(name = "daily-report", onFailure = OnLockFailure.SKIP,
			lockAtLeastFor = "${app.report.lock-at-least-for}")
	void run() {
		Instant started = Instant.now();
		long pendingOrders = this.jdbc.sql("select count(*) from orders where status = 'PENDING'")
			.query(Long.class)
			.single();
		this.jdbc.sql("insert into report_runs (instance, started_at, finished_at) values (?, ?, ?)")
			.params(this.instance, Timestamp.from(started), Timestamp.from(Instant.now()))
			.update();
		logger.info("Report run on instance " + this.instance + ": " + pendingOrders + " orders awaiting payment");
	}

}
